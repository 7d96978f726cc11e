import { exportAddonEvents } from '@/server/api/addonEventsExport';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

/** CSV or NDJSON export of the addon events the caller may browse (dashboard session or Hub JWT). */
export const GET = exportAddonEvents;

/**
 * Export of a filtered addon-event view as CSV or NDJSON, for the route handler at
 * /api/export/addon-events. Same filters, same scope rule and same domain query as the dashboard list
 * (support.listAddonEvents); authenticated by the dashboard session cookie or a Hub JWT. Rows are
 * streamed in keyset-paginated batches, so an export of any size never sits in memory.
 *
 *   GET /api/export/addon-events?format=csv|ndjson&org_id=&instance_id=&addon=&action=&since=&until=
 */
import { z } from 'zod';
import { addonEventScopeOf, iterateAddonEvents, type AddonEventRow } from '../domain/support/addonEvents';
import { errorResponse } from './errors';
import { addonEventFilterInput, toAddonEvent, toAddonEventFilters } from './schemas/support';
import { createContext } from './trpc';
import { admit, limitSubjectOf, RateLimitRefusal, rateLimitHeaders } from './rateLimit';
import { credentialFromHeaders } from '../auth/credentials';
import { sourceAddress } from './clientAddress';
import { requestLogger } from '../log';

const ExportInput = z.object({
  ...addonEventFilterInput,
  format: z.enum(['csv', 'ndjson'], { error: 'must be csv or ndjson' }).default('csv'),
});

export const CSV_COLUMNS = [
  'id',
  'occurred_at',
  'received_at',
  'organization_id',
  'organization_slug',
  'instance_id',
  'instance_name',
  'addon',
  'action',
  'actor',
  'details',
] as const;

/** RFC 4180 quoting, and a leading ' on cells a spreadsheet would run as a formula. */
export function csvCell(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) || safe !== safe.trim() ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csvLine(row: AddonEventRow): string {
  const e = toAddonEvent(row);
  const cells = [
    e.id,
    e.occurred_at,
    e.received_at,
    e.organization.id,
    e.organization.slug,
    e.instance?.id ?? null,
    e.instance?.name ?? null,
    e.addon,
    e.action,
    e.actor,
    e.details === null ? null : JSON.stringify(e.details),
  ];
  return `${cells.map(csvCell).join(',')}\r\n`;
}

export async function exportAddonEvents(req: Request): Promise<Response> {
  let scope;
  let limits: Record<string, string>;
  try {
    // Under the same limits as every other route (per address, failed credentials, per credential).
    const opts = { allowSessionCookie: true };
    const admitted = await admit(
      sourceAddress(req.headers)?.ip ?? 'unknown',
      credentialFromHeaders(req.headers, opts) !== null,
      () => createContext(req.headers, opts),
      (ctx) => limitSubjectOf(ctx.principal),
    );
    limits = admitted.headers;
    scope = addonEventScopeOf(admitted.caller.principal);
  } catch (err) {
    return errorResponse(err, 'addon event export', () =>
      err instanceof RateLimitRefusal ? rateLimitHeaders(err.status) : {},
    );
  }
  const parsed = ExportInput.safeParse(Object.fromEntries(new URL(req.url).searchParams));
  if (!parsed.success) return errorResponse(parsed.error, 'addon event export');
  const { format } = parsed.data;
  const rows = iterateAddonEvents(scope, toAddonEventFilters(parsed.data));
  const encoder = new TextEncoder();
  let headerSent = format !== 'csv';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        let chunk = '';
        if (!headerSent) {
          chunk += `${CSV_COLUMNS.join(',')}\r\n`;
          headerSent = true;
        }
        // Up to 500 rows per chunk.
        for (let i = 0; i < 500; i++) {
          const next = await rows.next();
          if (next.done) {
            if (chunk) controller.enqueue(encoder.encode(chunk));
            controller.close();
            return;
          }
          chunk += format === 'csv' ? csvLine(next.value) : `${JSON.stringify(toAddonEvent(next.value))}\n`;
        }
        controller.enqueue(encoder.encode(chunk));
      } catch (err) {
        requestLogger().error({ err }, 'addon event export failed');
        controller.error(new Error('export failed'));
      }
    },
    async cancel() {
      await rows.return(undefined);
    },
  });
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="addon-events-${stamp}.${format}"`,
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      ...limits,
    },
  });
}

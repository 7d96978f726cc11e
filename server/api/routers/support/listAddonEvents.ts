import { z } from 'zod';
import { addonEventScopeOf, listAddonEvents } from '../../../domain/support/addonEvents';
import { userProcedure } from '../../trpc';
import { PaginationSchema, pageInput, pagination, resolvePage } from '../../schemas/query';
import { AddonEventSchema, addonEventFilterInput, toAddonEvent, toAddonEventFilters } from '../../schemas/support';

export const listAddonEventsInput = z.object({ ...addonEventFilterInput, ...pageInput });

/** Dashboard: addon audit events, newest first. Platform admins all, organization admins their organization's. */
export const listAddonEventsProcedure = userProcedure
  .input(listAddonEventsInput)
  .output(z.object({ events: z.array(AddonEventSchema), pagination: PaginationSchema }))
  .query(async ({ ctx, input }) => {
    const page = resolvePage(input);
    const { rows, total } = await listAddonEvents(addonEventScopeOf(ctx.user), toAddonEventFilters(input), page);
    return { events: rows.map(toAddonEvent), pagination: pagination(page, total) };
  });

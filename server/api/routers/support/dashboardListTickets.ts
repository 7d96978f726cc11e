import { z } from 'zod';
import { listTickets, ticketScopeOfUser } from '../../../domain/support/tickets';
import { userProcedure } from '../../trpc';
import { PaginationSchema, pageInput, pagination, resolvePage } from '../../schemas/query';
import { DashboardTicketSchema, TicketSeverity, TicketStatus, toDashboardTicket } from '../../schemas/support';

/** Dashboard: organization members see their organization's tickets; platform admins all, filterable by organization. */
export const dashboardListTicketsProcedure = userProcedure
  .input(
    z.object({
      status: TicketStatus.optional(),
      severity: TicketSeverity.optional(),
      org_id: z.uuid().optional().describe('Platform admins only; ignored for organization members'),
      instance_id: z.uuid().optional(),
      ...pageInput,
    }),
  )
  .output(z.object({ tickets: z.array(DashboardTicketSchema), pagination: PaginationSchema }))
  .query(async ({ ctx, input }) => {
    const page = resolvePage(input);
    const { rows, total } = await listTickets(
      ticketScopeOfUser(ctx.user),
      { status: input.status, severity: input.severity, orgId: input.org_id, instanceId: input.instance_id },
      page,
    );
    return { tickets: rows.map(toDashboardTicket), pagination: pagination(page, total) };
  });

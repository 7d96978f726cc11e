import { z } from 'zod';
import { getTicket, ticketScopeOfUser } from '../../../domain/support/tickets';
import { userProcedure } from '../../trpc';
import { DashboardTicketSchema, TicketDetailSchema, toDashboardTicket, toTicketDetail } from '../../schemas/support';

/** Dashboard: one ticket with its messages; another organization's ticket is "not found" for members. */
export const dashboardGetTicketProcedure = userProcedure
  .input(z.object({ id: z.uuid({ error: 'must be a ticket id (UUID)' }) }))
  .output(
    z.object({
      ticket: TicketDetailSchema.extend(DashboardTicketSchema.pick({ organization: true, instance: true }).shape),
    }),
  )
  .query(async ({ ctx, input }) => {
    const detail = await getTicket(ticketScopeOfUser(ctx.user), input.id);
    const { organization, instance } = toDashboardTicket(detail.ticket);
    return { ticket: { ...toTicketDetail(detail), organization, instance } };
  });

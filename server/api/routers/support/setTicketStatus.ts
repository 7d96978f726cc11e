import { z } from 'zod';
import { setTicketStatus } from '../../../domain/support/tickets';
import { adminProcedure } from '../../trpc';
import { TicketStatus } from '../../schemas/support';

/** Dashboard, platform admins: set a ticket's status (audited). */
export const setTicketStatusProcedure = adminProcedure
  .input(z.object({ id: z.uuid({ error: 'must be a ticket id (UUID)' }), status: TicketStatus }))
  .output(
    z.object({
      ticket: z.object({ id: z.uuid(), number: z.number().int(), status: TicketStatus, updated_at: z.string() }),
    }),
  )
  .mutation(async ({ ctx, input }) => {
    const ticket = await setTicketStatus(ctx.user, input.id, input.status);
    return {
      ticket: {
        id: ticket.id,
        number: Number(ticket.number),
        status: ticket.status,
        updated_at: ticket.updatedAt.toISOString(),
      },
    };
  });

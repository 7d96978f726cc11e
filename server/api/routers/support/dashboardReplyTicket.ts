import { z } from 'zod';
import { isPlatformAdmin } from '../../../domain/principal';
import { addTicketMessage, ticketScopeOfUser } from '../../../domain/support/tickets';
import { userProcedure } from '../../trpc';
import { longText, MessageSchema, TicketStatus } from '../../schemas/support';

/**
 * Dashboard: reply to a ticket. Organization members reply as the organization (a closed or pending ticket
 * opens again); platform admins reply as Hub staff (the status is left as it is).
 */
export const dashboardReplyTicketProcedure = userProcedure
  .input(z.object({ id: z.uuid({ error: 'must be a ticket id (UUID)' }), body: longText(20_000) }))
  .output(
    z.object({
      message: MessageSchema,
      ticket: z.object({ id: z.uuid(), number: z.number().int(), status: TicketStatus }),
      reopened: z.boolean(),
    }),
  )
  .mutation(async ({ ctx, input }) => {
    const staff = isPlatformAdmin(ctx.user);
    const { ticket, message, reopened } = await addTicketMessage(
      ticketScopeOfUser(ctx.user),
      input.id,
      { kind: 'user', user: ctx.user, staff },
      input.body,
    );
    return {
      message: {
        id: message.id,
        author: {
          type: staff ? ('staff' as const) : ('user' as const),
          name: ctx.user.name || (staff ? 'Hub support' : ctx.user.email),
        },
        body: message.body,
        created_at: message.createdAt.toISOString(),
      },
      ticket: { id: ticket.id, number: Number(ticket.number), status: ticket.status },
      reopened,
    };
  });

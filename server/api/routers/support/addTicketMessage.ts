import { z } from 'zod';
import { addTicketMessage, ticketScopeOfInstance } from '../../../domain/support/tickets';
import { instanceProcedure } from '../../trpc';
import { longText, MessageSchema, TicketStatus } from '../../schemas/support';

export const addTicketMessageProcedure = instanceProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/support/tickets/{id}/messages',
      operationId: 'addTicketMessage',
      tags: ['support'],
      protect: true,
      summary: 'Add a message from the instance to one of its tickets',
      description:
        'A closed or pending ticket becomes open again. 404 for tickets of other instances or organizations.',
    },
  })
  .input(z.object({ id: z.uuid({ error: 'must be a ticket id (UUID)' }), body: longText(20_000) }))
  .output(
    z.object({
      message: MessageSchema,
      ticket: z.object({ id: z.uuid(), number: z.number().int(), status: TicketStatus }),
    }),
  )
  .mutation(async ({ ctx, input }) => {
    const { ticket, message } = await addTicketMessage(
      ticketScopeOfInstance(ctx.instance),
      input.id,
      { kind: 'instance', instance: ctx.instance },
      input.body,
    );
    return {
      message: {
        id: message.id,
        author: { type: 'instance' as const, name: ctx.instance.keyName },
        body: message.body,
        created_at: message.createdAt.toISOString(),
      },
      ticket: { id: ticket.id, number: Number(ticket.number), status: ticket.status },
    };
  });

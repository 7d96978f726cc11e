import { z } from 'zod';
import { getTicket, ticketScopeOfInstance } from '../../../domain/support/tickets';
import { instanceProcedure } from '../../trpc';
import { TicketDetailSchema, toTicketDetail } from '../../schemas/support';

export const getTicketProcedure = instanceProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/support/tickets/{id}',
      operationId: 'getTicket',
      tags: ['support'],
      protect: true,
      summary: 'One of this instance’s tickets, with its messages (oldest first)',
      description: '404 for tickets of other instances or organizations.',
    },
  })
  .input(z.object({ id: z.uuid({ error: 'must be a ticket id (UUID)' }) }))
  .output(z.object({ ticket: TicketDetailSchema }))
  .query(async ({ ctx, input }) => ({
    ticket: toTicketDetail(await getTicket(ticketScopeOfInstance(ctx.instance), input.id)),
  }));

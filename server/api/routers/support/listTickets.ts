import { z } from 'zod';
import { listTickets, ticketScopeOfInstance } from '../../../domain/support/tickets';
import { instanceProcedure } from '../../trpc';
import { PaginationSchema, pageInput, pagination, resolvePage } from '../../schemas/query';
import { TicketStatus, TicketSummarySchema, toTicketSummary } from '../../schemas/support';

export const listTicketsProcedure = instanceProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/support/tickets',
      operationId: 'listTickets',
      tags: ['support'],
      protect: true,
      summary: 'This instance’s tickets, newest first',
      description: 'limit defaults to 50 and is clamped to 100.',
    },
  })
  .input(z.object({ status: TicketStatus.optional(), ...pageInput }))
  .output(z.object({ tickets: z.array(TicketSummarySchema), pagination: PaginationSchema }))
  .query(async ({ ctx, input }) => {
    const page = resolvePage(input);
    const { rows, total } = await listTickets(ticketScopeOfInstance(ctx.instance), { status: input.status }, page);
    return { tickets: rows.map(toTicketSummary), pagination: pagination(page, total) };
  });

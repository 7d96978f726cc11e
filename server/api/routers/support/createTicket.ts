import { z } from 'zod';
import { createTicket } from '../../../domain/support/tickets';
import { instanceProcedure } from '../../trpc';
import { jsonObject, lineText, longText, TicketCreatedSchema, TicketSeverity } from '../../schemas/support';

export const MAX_DIAGNOSTICS_BYTES = 256 * 1024;

export const createTicketInput = z.object({
  subject: lineText(200),
  body: longText(20_000),
  severity: TicketSeverity.default('normal'),
  diagnostics: jsonObject(MAX_DIAGNOSTICS_BYTES, '256 KB')
    .optional()
    .describe('Any JSON object, at most 256 KB serialized'),
});

export const createTicketProcedure = instanceProcedure
  .meta({
    openapi: {
      method: 'POST',
      path: '/support/tickets',
      operationId: 'createTicket',
      tags: ['support'],
      protect: true,
      summary: 'Open a support ticket for this instance',
      description: 'The instance and organization are taken from the key.',
    },
  })
  .input(createTicketInput)
  .output(z.object({ ticket: TicketCreatedSchema }))
  .mutation(async ({ ctx, input }) => {
    const row = await createTicket(ctx.instance, input);
    return {
      ticket: {
        id: row.id,
        number: Number(row.number),
        subject: row.subject,
        status: row.status,
        severity: row.severity,
        created_at: row.createdAt.toISOString(),
      },
    };
  });

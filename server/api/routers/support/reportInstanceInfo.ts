import { z } from 'zod';
import { reportInstance } from '../../../domain/support/instances';
import { instanceProcedure } from '../../trpc';
import { hostName, httpUrl, InstanceInfoSchema, lineText, toInstanceInfo } from '../../schemas/support';

export const reportInstanceInfoInput = z.object({
  version: lineText(100).nullable().optional().describe('The instance software version'),
  base_url: httpUrl()
    .nullable()
    .optional()
    .describe('Where the instance is reached (http or https, at most 2,048 characters)'),
  mcp_url: httpUrl()
    .nullable()
    .optional()
    .describe(
      'The instance’s MCP endpoint URL, used by the Hub MCP proxy (https, or http on a loopback host unless ' +
        'the Hub allows it; at most 2,048 characters). A change of a registered URL is audited and shown to ' +
        'the organization’s admins.',
    ),
  hostname: hostName().nullable().optional().describe('The instance’s own host name'),
});

export const reportInstanceInfoProcedure = instanceProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/instance-info',
      operationId: 'reportInstanceInfo',
      tags: ['instance'],
      protect: true,
      summary: 'Record what the instance reports about itself; returns the same object as GET',
      description: 'Absent fields keep their previous value; null clears one.',
    },
  })
  .input(reportInstanceInfoInput)
  .output(InstanceInfoSchema)
  .mutation(async ({ ctx, input }) => toInstanceInfo(await reportInstance(ctx.instance, input)));

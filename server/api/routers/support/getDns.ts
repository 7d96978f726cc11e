import { ServiceError } from '../../../domain/errors';
import { z } from 'zod';
import { getDnsRecord } from '../../../domain/support/dns';
import { instanceProcedure } from '../../trpc';
import { DnsRecordSchema, toDnsRecord } from '../../schemas/support';

export const getDnsProcedure = instanceProcedure
  .meta({
    openapi: {
      method: 'GET',
      path: '/dns',
      operationId: 'getDnsRecord',
      tags: ['dns'],
      protect: true,
      summary: 'The instance’s dynamic DNS record',
      description: '404 when the instance has none (PUT /dns creates it).',
    },
  })
  .input(z.object({}))
  .output(z.object({ record: DnsRecordSchema }))
  .query(async ({ ctx }) => {
    const record = await getDnsRecord(ctx.instance.keyId);
    if (!record) throw new ServiceError('not_found', 'This instance has no DNS record; PUT /dns creates it');
    return { record: toDnsRecord(record) };
  });

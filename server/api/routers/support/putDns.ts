import { ServiceError } from '../../../domain/errors';
import { z } from 'zod';
import { normalizeIp, unpublishableReason } from '../../../domain/support/addresses';
import { sourceAddress } from '../../clientAddress';
import { DNS_CHANGE_INTERVAL_SECONDS, setDnsRecord } from '../../../domain/support/dns';
import { instanceProcedure } from '../../trpc';
import { DnsRecordSchema, toDnsRecord } from '../../schemas/support';

const badRequest = (message: string) => new ServiceError('invalid', message);

export const putDnsProcedure = instanceProcedure
  .meta({
    openapi: {
      method: 'PUT',
      path: '/dns',
      operationId: 'putDnsRecord',
      tags: ['dns'],
      protect: true,
      summary: 'Point the instance’s hostname at an address',
      description:
        `ip: IPv4 or IPv6; absent → the request's source address (X-Forwarded-For is honoured only as far as HUB_TRUSTED_PROXIES allows). ` +
        `The hostname is <org slug>-<first 8 hex digits of the key id>.<zone>, stable for the instance. ` +
        `At most one change per ${DNS_CHANGE_INTERVAL_SECONDS} s per instance (429 with Retry-After); re-sending the current address changes nothing. ` +
        'publish_state says whether the DNS server has the record yet; a failed push is retried in the background.',
    },
  })
  .input(z.object({ ip: z.string().trim().max(64, 'must be an IPv4 or IPv6 address').optional() }))
  .output(z.object({ record: DnsRecordSchema }))
  .mutation(async ({ ctx, input }) => {
    let address;
    if (input.ip !== undefined) {
      address = normalizeIp(input.ip);
      if (!address) throw badRequest('Invalid input: ip: must be an IPv4 or IPv6 address');
    } else {
      address = sourceAddress(ctx.headers);
      if (!address) throw badRequest('Invalid input: ip: the source address of this request is unknown; send ip');
    }
    const reason = unpublishableReason(address.ip, address.family);
    if (reason)
      throw badRequest(
        `Invalid input: ip: ${reason}${input.ip === undefined ? ' (taken from the request; send ip)' : ''}`,
      );
    const { record } = await setDnsRecord(ctx.instance, address.ip);
    return { record: toDnsRecord(record) };
  });

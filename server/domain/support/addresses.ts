/**
 * IP addresses for dynamic DNS: validation of an address an instance registers. The source address of a
 * request is the transport's (server/api/clientAddress.ts).
 */
import { BlockList } from 'node:net';
import { normalizeIp } from '@shared/ops';

export { normalizeIp };
export type IpFamily = 4 | 6;

/** Addresses that make no sense in a public or LAN DNS record (and loopback, which invites DNS rebinding). */
const UNPUBLISHABLE = new BlockList();
UNPUBLISHABLE.addSubnet('0.0.0.0', 8, 'ipv4');
UNPUBLISHABLE.addSubnet('127.0.0.0', 8, 'ipv4');
UNPUBLISHABLE.addSubnet('169.254.0.0', 16, 'ipv4');
UNPUBLISHABLE.addSubnet('224.0.0.0', 4, 'ipv4');
UNPUBLISHABLE.addSubnet('240.0.0.0', 4, 'ipv4'); // reserved, includes 255.255.255.255
UNPUBLISHABLE.addAddress('::', 'ipv6');
UNPUBLISHABLE.addAddress('::1', 'ipv6');
UNPUBLISHABLE.addSubnet('fe80::', 10, 'ipv6');
UNPUBLISHABLE.addSubnet('ff00::', 8, 'ipv6');

/** Why an address cannot be published, or null when it can (private LAN ranges are allowed). */
export function unpublishableReason(ip: string, family: IpFamily): string | null {
  if (UNPUBLISHABLE.check(ip, family === 4 ? 'ipv4' : 'ipv6')) {
    return `${ip} is not a usable host address (unspecified, loopback, link-local, multicast or reserved)`;
  }
  return null;
}

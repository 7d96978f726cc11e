/**
 * IP addresses for dynamic DNS: validation of an address an instance registers, and the source address
 * of a request.
 *
 * Where the source address comes from: handlers read X-Forwarded-For. The production server's edge
 * (server/http/nodeHttp.ts, forwardedFor) appends the TCP peer's address to whatever the request carried, as
 * a reverse proxy does, for REST, /mcp and what it hands to Next.js alike; so the last entry is always the
 * real peer. The Hub trusts the chain from the right: entries listed in HUB_TRUSTED_PROXIES are skipped,
 * and the first entry that is not a trusted proxy is the client. Entries to the left of it (written by the
 * client or by untrusted hops) are never used. Without HUB_TRUSTED_PROXIES only the peer counts. This
 * address keys the per-address rate limits (api/rateLimit.ts) and the DNS source address.
 *
 * `next dev` (no edge) copies the peer into X-Forwarded-For only when the request has none
 * (`x-forwarded-for ??= socket.remoteAddress`), so there a client can claim an address; in-process Fetch
 * calls (tests) have none at all and share the "unknown" bucket.
 */
import { BlockList, isIPv4, isIPv6 } from 'node:net';
import { supportSettings } from './settings';

export type IpFamily = 4 | 6;

/** The canonical text of an IP address (IPv6 compressed and lower-case, IPv4-mapped IPv6 → IPv4), or null. */
export function normalizeIp(raw: string): { ip: string; family: IpFamily } | null {
  const value = raw.trim();
  if (isIPv4(value)) return { ip: value, family: 4 };
  if (!isIPv6(value) || value.includes('%')) return null; // zone ids (fe80::1%eth0) are not publishable
  const canonical = new URL(`http://[${value}]/`).hostname.slice(1, -1);
  const mapped =
    /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(canonical) ?? /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (mapped) {
    if (mapped.length === 2) return { ip: mapped[1]!, family: 4 };
    const hi = parseInt(mapped[1]!, 16);
    const lo = parseInt(mapped[2]!, 16);
    return { ip: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: 4 };
  }
  return { ip: canonical, family: 6 };
}

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

/** One X-Forwarded-For entry: "1.2.3.4", "1.2.3.4:5678", "[2001:db8::1]:443" or "2001:db8::1". */
function parseForwardedEntry(entry: string) {
  let value = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(value)) value = value.replace(/:\d+$/, '');
  return normalizeIp(value);
}

/** The client address of a request (see the file comment), or null when there is none to be had. */
export function sourceAddress(headers: { get(name: string): string | null }): { ip: string; family: IpFamily } | null {
  const header = headers.get('x-forwarded-for');
  if (!header) return null;
  const entries = header
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const trusted = supportSettings.trustedProxies;
  for (let i = entries.length - 1; i >= 0; i--) {
    const parsed = parseForwardedEntry(entries[i]!);
    if (!parsed) return null;
    const isTrusted = trusted?.check(parsed.ip, parsed.family === 4 ? 'ipv4' : 'ipv6') ?? false;
    if (!isTrusted || i === 0) return parsed;
  }
  return null;
}

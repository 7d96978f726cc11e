/**
 * The client address of a request, for both services' per-address limits and the Hub's dynamic DNS.
 *
 * The chain is X-Forwarded-For with the TCP peer appended, as a reverse proxy appends it: the last entry is the
 * peer, which a client cannot forge. It is read from the right: entries that are trusted proxies
 * (HUB_TRUSTED_PROXIES, CORE_TRUSTED_PROXIES) are skipped, and the first one that is not is the client; entries
 * to its left (written by the client or by untrusted hops) are never used. Without trusted proxies only the peer
 * counts. An entry that is not an address, met before an untrusted hop, ends the walk with no address: a
 * trusted proxy handed on something that names nobody. (Only a trusted proxy can put it there: a client's own
 * entries lie left of the address its first proxy appended.) What no address means is the caller's: both
 * services count such requests under "unknown"; the Hub's dynamic DNS asks for an explicit ip.
 */
import { isIPv4, isIPv6, type BlockList } from 'node:net';

export interface IpAddress {
  /** Canonical text: IPv6 compressed and lower-case, an IPv4-mapped IPv6 address as IPv4. */
  ip: string;
  family: 4 | 6;
}

/** The canonical form of an IP address, or null for anything else (zone ids included: fe80::1%eth0). */
export function normalizeIp(raw: string): IpAddress | null {
  const value = raw.trim();
  if (isIPv4(value)) return { ip: value, family: 4 };
  if (!isIPv6(value) || value.includes('%')) return null;
  const canonical = new URL(`http://[${value}]/`).hostname.slice(1, -1);
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(canonical);
  if (dotted) return { ip: dotted[1]!, family: 4 };
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return { ip: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: 4 };
  }
  return { ip: canonical, family: 6 };
}

/** One X-Forwarded-For entry: "1.2.3.4", "1.2.3.4:5678", "[2001:db8::1]:443" or "2001:db8::1". */
export function parseForwardedEntry(entry: string): IpAddress | null {
  let value = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(value)) value = value.replace(/:\d+$/, '');
  return normalizeIp(value);
}

/** The chain a request carries: its X-Forwarded-For (repeated headers joined) with the peer appended. */
export function forwardedChain(
  forwardedFor: string | readonly string[] | null | undefined,
  peer: string | null | undefined,
): string | null {
  const given = Array.isArray(forwardedFor) ? forwardedFor.join(', ') : (forwardedFor as string | null | undefined);
  if (!peer) return given || null;
  return given ? `${given}, ${peer}` : peer;
}

/** The client's address from a chain (see the file comment), or null when not even the last entry is one. */
export function clientAddress(chain: string | null | undefined, trusted: BlockList | null): IpAddress | null {
  const entries = (chain ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = parseForwardedEntry(entries[i]!);
    if (!entry) return null;
    // Every entry a trusted proxy: the leftmost one.
    if (i === 0 || !trusted?.check(entry.ip, entry.family === 4 ? 'ipv4' : 'ipv6')) return entry;
  }
  return null;
}

/**
 * The bucket a per-address limit counts an address in: an IPv4 address as it is, an IPv6 address as its /64
 * ("2001:db8:1:2::/64"; one subscriber's network, whose addresses it may pick at will: counting each would give
 * it 2^64 budgets). Text that is no address (e.g. "unknown") is its own bucket.
 */
export function addressBucket(address: IpAddress | string): string {
  const parsed = typeof address === 'string' ? normalizeIp(address) : address;
  if (!parsed) return address as string;
  if (parsed.family === 4) return parsed.ip;
  const [head = '', tail = ''] = parsed.ip.split('::');
  const left = head ? head.split(':') : [];
  const right = parsed.ip.includes('::') && tail ? tail.split(':') : [];
  const groups = parsed.ip.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}

/**
 * The client address of a request, for the sign-in limits. Without CORE_TRUSTED_PROXIES it is the TCP peer.
 * With it, the chain X-Forwarded-For + peer is read from the right: entries that are trusted proxies are
 * skipped and the first one that is not is the client; entries to its left (written by the client or by
 * untrusted hops) are never used. The same rule as the Hub's HUB_TRUSTED_PROXIES.
 *
 * Limits key IPv6 clients by their /64: one subscriber usually holds a whole /64 and can pick any address in it.
 */
import { isIPv4, isIPv6, type BlockList } from 'node:net';

function normalize(raw: string): { ip: string; family: 4 | 6 } | null {
  let value = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(value);
  if (bracketed) value = bracketed[1]!;
  else if (/^\d+\.\d+\.\d+\.\d+:\d+$/.test(value)) value = value.replace(/:\d+$/, '');
  if (isIPv4(value)) return { ip: value, family: 4 };
  if (!isIPv6(value) || value.includes('%')) return null;
  const canonical = new URL(`http://[${value}]/`).hostname.slice(1, -1);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(canonical);
  if (mapped) return { ip: mapped[1]!, family: 4 };
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(canonical);
  if (hex) {
    const hi = parseInt(hex[1]!, 16);
    const lo = parseInt(hex[2]!, 16);
    return { ip: `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`, family: 4 };
  }
  return { ip: canonical, family: 6 };
}

/** The key a client is counted under: the IPv4 address, or the IPv6 /64 ("2001:db8:1:2::/64"). */
export function limitKey(address: { ip: string; family: 4 | 6 }): string {
  if (address.family === 4) return address.ip;
  const [head = '', tail = ''] = address.ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = address.ip.includes('::')
    ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g || '0', 16).toString(16))
    .join(':')}::/64`;
}

export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trusted: BlockList | null,
): string {
  const peerAddress = peer ? normalize(peer) : null;
  if (!peerAddress) return 'unknown';
  if (!trusted) return limitKey(peerAddress);
  const chain = [
    ...(forwardedFor ?? '')
      .split(',')
      .map((e) => e.trim())
      .filter(Boolean),
    peer!,
  ];
  for (let i = chain.length - 1; i >= 0; i--) {
    const entry = normalize(chain[i]!);
    if (!entry) return limitKey(normalize(chain[i + 1] ?? peer!) ?? peerAddress); // garbage: the last hop we could read
    const isTrusted = trusted.check(entry.ip, entry.family === 4 ? 'ipv4' : 'ipv6');
    if (!isTrusted || i === 0) return limitKey(entry);
  }
  return limitKey(peerAddress);
}

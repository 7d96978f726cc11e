/**
 * The client address of a request as the Hub's handlers read it: the one rule of both services
 * (@shared/ops clientAddress: X-Forwarded-For read from the right past HUB_TRUSTED_PROXIES). The production
 * server's edge appends the TCP peer to X-Forwarded-For on every path (REST, /mcp and what it hands to Next.js:
 * server/http/nodeHttp.ts), so the last entry is always the real peer. This address keys the per-address rate
 * limits (rateLimit.ts) and is the DNS source address.
 *
 * `next dev` (no edge) copies the peer into X-Forwarded-For only when the request has none
 * (`x-forwarded-for ??= socket.remoteAddress`), so there a client can claim an address; in-process Fetch
 * calls (tests) have none at all and share the "unknown" bucket.
 */
import { clientAddress, type IpAddress } from '@shared/ops';
import { config } from '../config';

/** The client address of a request (see the file comment), or null when there is none to be had. */
export function sourceAddress(headers: { get(name: string): string | null }): IpAddress | null {
  const chain = headers.get('x-forwarded-for') ?? '';
  const trusted = config.trustedProxies;
  // Kept by chain (every request asks; a fleet comes through few): bounded, and forgotten when the trusted proxies
  // change (a reloaded configuration).
  if (known.trusted !== trusted) known = { trusted, byChain: new Map() };
  let address = known.byChain.get(chain);
  if (address === undefined) {
    if (known.byChain.size >= 10_000) known.byChain.clear();
    known.byChain.set(chain, (address = clientAddress(chain, trusted)));
  }
  return address;
}
let known: { trusted: unknown; byChain: Map<string, IpAddress | null> } = { trusted: undefined, byChain: new Map() };

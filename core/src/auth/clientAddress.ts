/**
 * The client address of a request, for the sign-in limits: the one rule of both services (@shared/ops clientAddress:
 * the chain X-Forwarded-For + peer read from the right past CORE_TRUSTED_PROXIES; without them only the peer counts),
 * counted by IPv4 address or IPv6 /64 (addressBucket: one subscriber usually holds a whole /64).
 */
import type { BlockList } from 'node:net';
import { addressBucket, clientAddress as chainClient, forwardedChain, type IpAddress } from '@shared/ops';

/** The key a client is counted under: the IPv4 address, or the IPv6 /64 ("2001:db8:1:2::/64"). */
export const limitKey = (address: IpAddress): string => addressBucket(address);

export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trusted: BlockList | null,
): string {
  // No socket (in-process requests) or no address to be had (garbage before an untrusted hop): one shared bucket.
  if (!peer) return 'unknown';
  const address = chainClient(forwardedChain(forwardedFor, peer), trusted);
  return address ? limitKey(address) : 'unknown';
}

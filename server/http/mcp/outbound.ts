/**
 * Outbound safety for the MCP proxy. Instance MCP URLs are reported by instances, so the Hub must not
 * become a way to reach its own network: unless HUB_ALLOW_PRIVATE_UPSTREAMS=true, every address a
 * host name resolves to is checked (all of them, at connect time, so DNS rebinding between a check
 * and the connection is not possible) and loopback, private, link-local, carrier-grade NAT, metadata,
 * multicast and reserved ranges are refused. IP literals are checked before connecting (Node does not
 * call the lookup function for them).
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction } from 'node:net';
import { config } from '../../config';

const blocked = new net.BlockList();
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including 169.254.169.254 (cloud metadata)
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments (includes 192.0.0.192 metadata on some clouds)
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv4');
}
for (const [prefix, bits] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['64:ff9b::', 96], // NAT64: may embed a private IPv4 address
  ['64:ff9b:1::', 48],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: may embed a private IPv4 address
  ['fc00::', 7], // unique local, includes fd00:ec2::254 (metadata)
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(prefix, bits, 'ipv6');
}

/** Whether an IP address is one the Hub refuses to proxy to (without HUB_ALLOW_PRIVATE_UPSTREAMS). */
export function isPrivateAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped) return blocked.check(mapped[1]!, 'ipv4');
    return blocked.check(address, 'ipv6');
  }
  return true; // not an IP address at all: refuse
}

/**
 * The message names neither the host nor what it resolved to: the caller learns that the instance's URL is
 * refused, not how the Hub's network looks. `host` and `address` are for the log.
 */
export class UpstreamBlockedError extends Error {
  readonly code = 'HUB_UPSTREAM_BLOCKED';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      "The instance's MCP URL points to a loopback, private, link-local or metadata address, which this Hub does " +
        'not proxy to (the operator may allow it with HUB_ALLOW_PRIVATE_UPSTREAMS=true)',
    );
  }
}

const blockedError = (host: string, address: string) => new UpstreamBlockedError(host, address);

/** net's lookup, but resolving every address and refusing private ones unless allowed. */
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return callback(err, '', 4);
    const list = addresses as dns.LookupAddress[];
    if (!config.allowPrivateUpstreams) {
      const bad = list.find((a) => isPrivateAddress(a.address));
      if (bad) return callback(blockedError(hostname, bad.address) as NodeJS.ErrnoException, '', 4);
    }
    if (list.length === 0) {
      return callback(Object.assign(new Error(`No address for ${hostname}`), { code: 'ENOTFOUND' }), '', 4);
    }
    if ((options as dns.LookupOptions).all)
      return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};

/** A literal IP host that policy refuses, as an error; null when the host is a name or an allowed address. */
export function checkLiteralHost(hostname: string): UpstreamBlockedError | null {
  if (config.allowPrivateUpstreams) return null;
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  if (net.isIP(bare) && isPrivateAddress(bare)) return blockedError(hostname, bare);
  return null;
}

/**
 * How long an idle connection to an instance is kept at most. Setting it also makes Node's agent honour the
 * instance's own `Keep-Alive: timeout=N` (dropping the connection a second before the instance would): without it,
 * Node 20 keeps the connection past N and a call sent as the instance closes it fails with ECONNRESET (a 502).
 */
const UPSTREAM_IDLE_MS = 30_000;

// Keep-alive pools shared by every proxied call (no per-request connection set-up when the instance
// keeps the connection open). The guarded lookup runs whenever a new connection is made.
const agentOptions = {
  keepAlive: true,
  keepAliveMsecs: 15_000,
  maxFreeSockets: 64,
  timeout: UPSTREAM_IDLE_MS,
  lookup: guardedLookup,
} as http.AgentOptions;
export const upstreamAgents = {
  'http:': new http.Agent(agentOptions),
  'https:': new https.Agent(agentOptions),
};

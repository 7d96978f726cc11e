/**
 * The PowerDNS Authoritative HTTP API, as far as dynamic DNS needs it: replace or delete the A/AAAA
 * records of one name in the configured zone (PATCH /api/v1/servers/{server}/zones/{zone}).
 * Errors carry the HTTP status and PowerDNS's own message, never the API key.
 */
import { config, ConfigError } from '../../config';

const PUSH_TIMEOUT_MS = 5_000;

export class DnsPushError extends Error {}

type RRSet =
  | {
      name: string;
      type: 'A' | 'AAAA';
      ttl: number;
      changetype: 'REPLACE';
      records: { content: string; disabled: false }[];
    }
  | { name: string; type: 'A' | 'AAAA'; changetype: 'DELETE' };

const fqdn = (name: string) => `${name}.`;

async function patchZone(rrsets: RRSet[]): Promise<void> {
  const pdns = config.support.powerdns;
  if (!pdns) throw new ConfigError('HUB_DNS_PROVIDER is not powerdns: nothing to publish to');
  const { apiUrl, apiKey, serverId } = pdns;
  const zone = config.support.dnsZone;
  const url = `${apiUrl}/api/v1/servers/${encodeURIComponent(serverId)}/zones/${encodeURIComponent(fqdn(zone))}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'PATCH',
      headers: { 'X-API-Key': apiKey, 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ rrsets }),
      signal: AbortSignal.timeout(PUSH_TIMEOUT_MS),
    });
  } catch (err) {
    const cause = (err as Error & { cause?: { code?: string } }).cause?.code;
    const reason =
      (err as Error).name === 'TimeoutError'
        ? `no answer within ${PUSH_TIMEOUT_MS / 1000} s`
        : (cause ?? (err as Error).message);
    throw new DnsPushError(`PowerDNS API unreachable at ${apiUrl}: ${reason}`);
  }
  if (res.ok) {
    await res.body?.cancel();
    return;
  }
  const text = await res.text().catch(() => '');
  let detail = text;
  try {
    detail = (JSON.parse(text) as { error?: string }).error ?? text;
  } catch {
    /* not JSON */
  }
  const hint = res.status === 404 ? ` (does zone ${fqdn(zone)} exist on server "${serverId}"?)` : '';
  throw new DnsPushError(`PowerDNS answered ${res.status}${hint}: ${detail.slice(0, 300)}`);
}

/** Points `hostname` at `ip` (A or AAAA) and removes the record of the other family. */
export async function pushRecord(hostname: string, ip: string, family: 4 | 6): Promise<void> {
  const type = family === 4 ? 'A' : 'AAAA';
  const other = family === 4 ? 'AAAA' : 'A';
  await patchZone([
    {
      name: fqdn(hostname),
      type,
      ttl: config.support.dnsTtl,
      changetype: 'REPLACE',
      records: [{ content: ip, disabled: false }],
    },
    { name: fqdn(hostname), type: other, changetype: 'DELETE' },
  ]);
}

/** Removes the A and AAAA records of `hostname` (no error when there are none). */
export async function pushDeletion(hostname: string): Promise<void> {
  await patchZone([
    { name: fqdn(hostname), type: 'A', changetype: 'DELETE' },
    { name: fqdn(hostname), type: 'AAAA', changetype: 'DELETE' },
  ]);
}

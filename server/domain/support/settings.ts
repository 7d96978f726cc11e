/**
 * Settings of the instance support surface (dynamic DNS and the source address of requests), read from
 * the environment through server/config.ts's readEnv like the Hub's other settings. Listed in the README's
 * configuration table.
 *
 *   HUB_DNS_ZONE          zone the instance hostnames live in           default instances.hub.internal
 *   HUB_DNS_PROVIDER      none | powerdns                               default none (database only)
 *   HUB_DNS_TTL           TTL of published A/AAAA records, seconds      default 60
 *   HUB_PDNS_API_URL      PowerDNS Authoritative API, e.g. http://127.0.0.1:8081   (powerdns only)
 *   HUB_PDNS_API_KEY      its X-API-Key                                                (powerdns only)
 *   HUB_PDNS_SERVER_ID    server id in the API path                    default localhost
 *   HUB_TRUSTED_PROXIES   IPs/CIDRs of reverse proxies whose X-Forwarded-For entries are honoured
 */
import type { BlockList } from 'node:net';
import { parseAddressList } from '@shared/ops';
import { readEnv } from '../../config';

function env(name: string): string | undefined {
  const value = readEnv(name);
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

/** A misconfiguration: logged in full, answered as a 500 without details. */
export class SupportConfigError extends Error {}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

export const supportSettings = {
  /** Lower-case, without a trailing dot; validated as a DNS name with room for a 63-character label. */
  get dnsZone(): string {
    const zone = (env('HUB_DNS_ZONE') ?? 'instances.hub.internal').toLowerCase().replace(/\.$/, '');
    if (zone.length > 189 || !zone.split('.').every((label) => LABEL.test(label))) {
      throw new SupportConfigError(
        `HUB_DNS_ZONE "${zone}" is not a valid DNS zone name (letters, digits, hyphens; at most 189 characters)`,
      );
    }
    return zone;
  },
  get dnsProvider(): 'none' | 'powerdns' {
    const value = (env('HUB_DNS_PROVIDER') ?? 'none').toLowerCase();
    if (value !== 'none' && value !== 'powerdns')
      throw new SupportConfigError(`HUB_DNS_PROVIDER must be "none" or "powerdns", got "${value}"`);
    return value;
  },
  get dnsTtl(): number {
    const raw = env('HUB_DNS_TTL') ?? '60';
    const ttl = Number(raw);
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > 86_400)
      throw new SupportConfigError(`HUB_DNS_TTL must be 1..86400 seconds, got "${raw}"`);
    return ttl;
  },
  get powerdns(): { apiUrl: string; apiKey: string; serverId: string } {
    const apiUrl = env('HUB_PDNS_API_URL');
    const apiKey = env('HUB_PDNS_API_KEY');
    if (!apiUrl || !apiKey)
      throw new SupportConfigError('HUB_DNS_PROVIDER=powerdns needs HUB_PDNS_API_URL and HUB_PDNS_API_KEY');
    let url: URL;
    try {
      url = new URL(apiUrl);
    } catch {
      throw new SupportConfigError(`HUB_PDNS_API_URL "${apiUrl}" is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new SupportConfigError('HUB_PDNS_API_URL must be http(s)');
    // Accept the server's base address with or without the /api/v1 suffix.
    const base = url
      .toString()
      .replace(/\/+$/, '')
      .replace(/\/api\/v1$/, '');
    return { apiUrl: base, apiKey, serverId: env('HUB_PDNS_SERVER_ID') ?? 'localhost' };
  },
  /** Parsed HUB_TRUSTED_PROXIES (comma or space separated addresses and CIDR ranges); null when unset. */
  get trustedProxies(): BlockList | null {
    const raw = env('HUB_TRUSTED_PROXIES');
    if (!raw) return null;
    if (cachedProxies?.raw === raw) return cachedProxies.list;
    let list: BlockList;
    try {
      list = parseAddressList(raw, 'HUB_TRUSTED_PROXIES');
    } catch (err) {
      throw new SupportConfigError((err as Error).message);
    }
    cachedProxies = { raw, list };
    return list;
  },
};

let cachedProxies: { raw: string; list: BlockList } | undefined;

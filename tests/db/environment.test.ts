/**
 * server/config.ts: the environment is parsed once into one typed, frozen object. A running process never reads
 * process.env again; tests that change it call reloadConfig() (tests/setup.ts does before and after each test).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { config, ConfigError, loadConfig, reloadConfig } from '../../server/config';
import { limitOf } from '../../server/api/rateLimit';
import { quotaOf } from '../../server/domain/support/quotas';

afterEach(() => {
  delete process.env.HUB_RATE_LIMIT_ANONYMOUS;
  delete process.env.HUB_MCP_MAX_RESPONSE_BYTES;
});

describe('loadConfig', () => {
  it('gives every setting its default, and counts a variable set to blanks as unset', () => {
    const c = loadConfig({ HUB_LOG_LEVEL: '  ', PORT: '' });
    expect(c).toMatchObject({
      port: 3000,
      hubUrl: 'http://localhost:3000',
      logLevel: 'info',
      databasePoolMode: 'session',
      seedDemo: true,
      rateLimits: { anonymous: 120, credential: 1200, address: 2400, failed_auth: 20 },
      rateLimitSyncMs: 1000,
      quotas: { tickets: 1000, ticket_messages: 20_000, addon_events: 1_000_000 },
      support: { dnsProvider: 'none', dnsZone: 'instances.hub.internal', dnsTtl: 60, powerdns: null },
      auth: { oidc: null, authUrlFromHubUrl: null },
      trustedProxies: null,
    });
  });

  it('parses what is set: numbers, lists, derived values', () => {
    const c = loadConfig({
      PORT: '8080',
      HUB_URL: 'https://hub.example/',
      DATABASE_DIRECT_URL: 'postgres://db/direct',
      DATABASE_READ_URL: 'postgres://r1/db, postgres://r2/db',
      HUB_SUPERADMIN_EMAILS: 'Boss@Example.test, ops@example.test',
      HUB_RATE_LIMIT_ANONYMOUS: '7',
      HUB_QUOTA_TICKETS: '3',
      HUB_TRUSTED_PROXIES: '10.0.0.0/8',
      HUB_DNS_PROVIDER: 'powerdns',
      HUB_PDNS_API_URL: 'http://127.0.0.1:8081/api/v1/',
      HUB_PDNS_API_KEY: ' key ',
      HUB_JWT_PRIVATE_KEY: 'line1\\nline2',
    });
    expect(c.hubUrl).toBe('https://hub.example');
    expect(c.databasePoolMode).toBe('transaction'); // implied by DATABASE_DIRECT_URL
    expect(c.databaseReadUrls).toEqual(['postgres://r1/db', 'postgres://r2/db']);
    expect(c.auth.superadminEmails).toEqual(['boss@example.test', 'ops@example.test']);
    expect(c.auth.authUrlFromHubUrl).toBe('https://hub.example/api/auth');
    expect(c.rateLimits.anonymous).toBe(7);
    expect(c.quotas.tickets).toBe(3);
    expect(c.trustedProxies?.check('10.1.2.3')).toBe(true);
    expect(c.support.powerdns).toEqual({ apiUrl: 'http://127.0.0.1:8081', apiKey: 'key', serverId: 'localhost' });
    expect(c.jwtPrivateKey).toBe('line1\nline2');
  });

  it.each([
    [{ PORT: '70000' }, 'PORT must be an integer from 0 to 65535, got "70000"'],
    [{ HUB_RATE_LIMIT_ANONYMOUS: 'lots' }, 'HUB_RATE_LIMIT_ANONYMOUS must be a positive integer, got "lots"'],
    [{ HUB_RESPONSE_CACHE_MB: '-1' }, 'HUB_RESPONSE_CACHE_MB must be 0 or a positive integer, got "-1"'],
    [{ HUB_RATE_LIMIT_SYNC_MS: '5' }, 'HUB_RATE_LIMIT_SYNC_MS must be an integer of at least 10, got "5"'],
    [{ HUB_LOG_LEVEL: 'loud' }, 'HUB_LOG_LEVEL must be fatal, error, warn, info, debug, trace, silent; got "loud"'],
    [{ DATABASE_POOL_MODE: 'statement' }, 'DATABASE_POOL_MODE must be session, transaction; got "statement"'],
    [{ HUB_DNS_ZONE: 'bad_zone' }, 'HUB_DNS_ZONE "bad_zone" is not a valid DNS zone name'],
    [{ HUB_DNS_PROVIDER: 'powerdns' }, 'HUB_DNS_PROVIDER=powerdns needs HUB_PDNS_API_URL and HUB_PDNS_API_KEY'],
    [{ HUB_TRUSTED_PROXIES: 'not-an-address' }, 'HUB_TRUSTED_PROXIES'],
  ])('refuses %o with a ConfigError naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('is frozen, nested objects included', () => {
    const c = loadConfig({});
    expect(Object.isFrozen(c) && Object.isFrozen(c.auth) && Object.isFrozen(c.rateLimits)).toBe(true);
    expect(() => {
      (c as { port: number }).port = 1;
    }).toThrow(TypeError);
    expect(() => {
      (config as { port: number }).port = 1;
    }).toThrow(TypeError);
  });
});

describe('config', () => {
  it('is parsed once: a change of process.env is seen after reloadConfig(), not before', () => {
    process.env.HUB_RATE_LIMIT_ANONYMOUS = '7';
    process.env.HUB_MCP_MAX_RESPONSE_BYTES = '1000';
    reloadConfig();
    expect(limitOf('anonymous')).toBe(7);
    expect(config.mcpMaxResponseBytes).toBe(1000);
    process.env.HUB_RATE_LIMIT_ANONYMOUS = '9';
    process.env.HUB_MCP_MAX_RESPONSE_BYTES = '2000';
    expect(limitOf('anonymous')).toBe(7);
    expect(config.mcpMaxResponseBytes).toBe(1000);
    reloadConfig();
    expect(limitOf('anonymous')).toBe(9);
    expect(config.mcpMaxResponseBytes).toBe(2000);
    expect(quotaOf('tickets')).toBe(1000);
  });

  it('reads the same object on every access (no parse per request)', () => {
    const c = reloadConfig();
    expect(config.auth).toBe(c.auth);
    expect(config.rateLimits).toBe(c.rateLimits);
    expect({ ...config }).toEqual({ ...c });
    expect('hubUrl' in config).toBe(true);
  });
});

/**
 * The Hub's configuration: every setting it reads from the environment, parsed once into one typed, frozen object
 * (loadConfig), as Core does (core/src/config.ts). This file and the table in docs/hub.md (Configuration) are the
 * two places that list them; nothing else reads process.env but the CLIs' entry points and Next.js' own hooks
 * (tests/repo/env-reads.test.ts). `config` is parsed on first use, so that the CLI and tests set variables first;
 * tests that change the environment afterwards call reloadConfig().
 */
import type { BlockList } from 'node:net';
import { parseAddressList } from '@shared/ops';

/** A setting that cannot be used: it names the variable, and stops the process at start (server/http/serve.ts). */
export class ConfigError extends Error {}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  name: string;
  scope: string;
}

export type LimitName = 'anonymous' | 'credential' | 'address' | 'failed_auth';
export type Quota = 'tickets' | 'ticket_messages' | 'addon_events';

export interface HubConfig {
  /** 0: any free port (tests; the listening log line names the one chosen). */
  readonly port: number;
  /** The production server's listening address. */
  readonly hostname: string;
  /** Public base URL of the Hub, without a trailing slash; also the issuer of every JWT it signs. */
  readonly hubUrl: string;
  /** Megabytes of catalog answers the response cache keeps per process; 0 turns it off (every answer computed). */
  readonly responseCacheMb: number;
  readonly databaseUrl: string | undefined;
  readonly databasePoolSize: number;
  /**
   * PostgreSQL without a pooler in between, for what needs a session of its own: the migration lock and LISTEN
   * (docs/operating-at-scale.md). Unset: DATABASE_URL is used for them.
   */
  readonly databaseDirectUrl: string | undefined;
  /**
   * "transaction" when DATABASE_URL is a pooler in transaction mode (PgBouncer pool_mode = transaction): no named
   * prepared statements, no session settings at connect (the pooler sets them), DATABASE_DIRECT_URL required.
   * Default: "transaction" when DATABASE_DIRECT_URL is set, else "session".
   */
  readonly databasePoolMode: 'session' | 'transaction';
  /** Streaming replicas for the catalog reads of anonymous and instance-key callers. */
  readonly databaseReadUrls: string[];
  /** A replica further behind the primary than this (milliseconds) is skipped until it catches up. */
  readonly databaseReadMaxLagMs: number;
  /** PostgreSQL: milliseconds to open a connection before the request is answered 503. */
  readonly databaseConnectTimeoutMs: number;
  /** PostgreSQL: statement_timeout of every connection, in milliseconds. */
  readonly databaseStatementTimeoutMs: number;
  /** Tests only (tests/global-setup.ts): a migrated PGlite snapshot that in-memory databases start from. */
  readonly testPgliteSnapshot: string | undefined;
  /**
   * Credential cache: milliseconds a secret's look-up is kept (revocations and changes still end it at once,
   * through the 'auth' generation). A fleet polling every minute wants more than its poll interval.
   */
  readonly credentialCacheTtlMs: number;
  /** Credential cache: most secrets kept per process (about 300 bytes each): at least the fleet's instance keys. */
  readonly credentialCacheMax: number;
  /**
   * Response cache: how long an answer is kept at most. Catalog writes end it at once; the TTL bounds what changes
   * without one (download counts).
   */
  readonly responseCacheTtlMs: number;
  /** Response cache: most answers kept per process (within HUB_RESPONSE_CACHE_MB). */
  readonly responseCacheEntries: number;
  /** Bearer token of GET /metrics (Prometheus); unset: /metrics answers 404. */
  readonly metricsToken: string | undefined;
  /** Embedded database folder when DATABASE_URL is unset; "memory://" keeps it in memory. */
  readonly dataDir: string;
  /** Embedded database: load the demo catalog when a Hub server first starts on a new data folder. */
  readonly seedDemo: boolean;
  /** Master secret for encrypting stored secrets; generated and kept in the database when unset. */
  readonly secret: string | undefined;
  /** PEM (PKCS#8) EC P-256 private key for signing JWTs; generated and kept in the database when unset. */
  readonly jwtPrivateKey: string | undefined;
  /** Lifetime of session and script JWTs, in seconds. */
  readonly jwtTtlSeconds: number;
  /** SIGTERM: milliseconds to let in-flight requests and streams finish before they are cut. */
  readonly shutdownTimeoutMs: number;
  /**
   * SIGTERM: milliseconds to go on serving while /readyz already answers 503, before the listening socket closes
   * (load balancers that route by health checks take the process out first). 0: close at once.
   */
  readonly shutdownReadyDelayMs: number;
  /** Production server: most open client connections at once (more are refused at accept). */
  readonly maxConnections: number;
  /** Production server: milliseconds to receive a request's headers, and the whole request (not the answer). */
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  /** Where the logs go: stdout (1), or stderr (2) in the CLI, whose stdout carries its result. */
  readonly logFd: 1 | 2;
  /** pino log level. */
  readonly logLevel: (typeof LOG_LEVELS)[number];
  /** `next dev`: pages allow what its hot reload needs (server/http/securityHeaders.ts pageCsp). */
  readonly isDevelopment: boolean;
  /** The reverse proxies whose X-Forwarded-For entries are believed when finding a client's address; null: none. */
  readonly trustedProxies: BlockList | null;
  /** Per-minute limits (server/api/rateLimit.ts) and how often each process shares its counts. */
  readonly rateLimits: Readonly<Record<LimitName, number>>;
  readonly rateLimitSyncMs: number;
  /** What an organization's instances may store on the Hub (server/domain/support/quotas.ts). */
  readonly quotas: Readonly<Record<Quota, number>>;
  /** Sign-in: the OpenID Connect provider, the development provider, superadmins, NextAuth's secret. */
  readonly auth: {
    /** The configured provider (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET), or null when not fully set. */
    readonly oidc: Readonly<OidcSettings> | null;
    /** Which OIDC_* variables are unset, to explain a partial configuration. */
    readonly missingOidcVariables: string[];
    /** HUB_DEV_OIDC_PROVIDER=1 (set by `npm start`): anyone signs in, and the first user becomes superadmin. */
    readonly devProvider: boolean;
    /** Lower-cased; these people become superadmin when they sign in. */
    readonly superadminEmails: string[];
    /** AUTH_SECRET (or NEXTAUTH_SECRET); unset: derived from the Hub's master secret. */
    readonly authSecret: string | undefined;
    /** With HUB_URL set and AUTH_URL unset: the AUTH_URL NextAuth is to build callback URLs from; else null. */
    readonly authUrlFromHubUrl: string | null;
  };
  /** The instance support surface: dynamic DNS of instance hostnames. */
  readonly support: {
    /** Lower-case, without a trailing dot; a DNS name with room for a 63-character label. */
    readonly dnsZone: string;
    readonly dnsProvider: 'none' | 'powerdns';
    /** Seconds, of the published A/AAAA records. */
    readonly dnsTtl: number;
    /** The PowerDNS Authoritative API: set exactly when dnsProvider is powerdns. */
    readonly powerdns: { readonly apiUrl: string; readonly apiKey: string; readonly serverId: string } | null;
  };
  /**
   * MCP proxy: the Hub refuses instance MCP URLs that resolve to loopback, private, link-local or metadata
   * addresses unless this is set (development, tests, or instances on a private network the operator trusts).
   */
  readonly allowPrivateUpstreams: boolean;
  /**
   * Instance reports: a plain http:// mcp_url is refused unless its host is loopback, because the proxied calls
   * would cross the network in clear; set, it is allowed (the edge logs a warning at start while it is set).
   */
  readonly allowInsecureMcpUrl: boolean;
  /** MCP proxy: milliseconds to open the TCP/TLS connection to an instance before answering 504. */
  readonly mcpConnectTimeoutMs: number;
  /** MCP proxy: milliseconds until the instance's response headers arrive (then mcpIdleTimeoutMs applies). */
  readonly mcpResponseTimeoutMs: number;
  /** MCP proxy: most calls and streams one personal access token may have open at once (per process). */
  readonly mcpMaxStreamsPerToken: number;
  /**
   * MCP proxy: most calls and streams one person may have open at once over all their tokens (per process).
   * Without it, one account's tokens times the per-token limit could hold every connection of the process.
   */
  readonly mcpMaxStreamsPerUser: number;
  /** MCP proxy: most bytes relayed in one response; beyond it the response is cut. */
  readonly mcpMaxResponseBytes: number;
  /** MCP proxy: a started response from which nothing arrives for this long is closed. */
  readonly mcpIdleTimeoutMs: number;
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * The one reader of the environment: every setting goes through `env` (set but empty, or blanks, counts as
 * unset) and the typed readers built on it, which throw a ConfigError naming the variable.
 */
function readerOf(source: Readonly<Record<string, string | undefined>>) {
  const env = (name: string): string | undefined => {
    const value = source[name];
    return value?.trim() ? value : undefined;
  };
  /** A name, URL or credential given on a line: surrounding blanks are not part of it. */
  const line = (name: string) => env(name)?.trim();
  const integer = (name: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER) => {
    const raw = line(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      const range =
        max !== Number.MAX_SAFE_INTEGER
          ? `an integer from ${min} to ${max}`
          : min === 0
            ? '0 or a positive integer'
            : min === 1
              ? 'a positive integer'
              : `an integer of at least ${min}`;
      throw new ConfigError(`${name} must be ${range}, got "${raw}"`);
    }
    return value;
  };
  /** A positive integer. */
  const intEnv = (name: string, fallback: number) => integer(name, fallback, 1);
  /** Like intEnv, but 0 is allowed (it turns the feature off). */
  const countEnv = (name: string, fallback: number) => integer(name, fallback, 0);
  const oneOf = <T extends string>(name: string, values: readonly T[], fallback: T): T => {
    const raw = line(name);
    if (raw === undefined) return fallback;
    if ((values as readonly string[]).includes(raw)) return raw as T;
    throw new ConfigError(`${name} must be ${values.join(', ')}; got "${raw}"`);
  };
  return { env, line, integer, intEnv, countEnv, oneOf };
}

/** Parses every setting from `source` (process.env, or a test's own); throws a ConfigError naming the variable. */
export function loadConfig(
  source: Readonly<Record<string, string | undefined>> = process.env,
  options: { logsOnStderr?: boolean } = {},
): HubConfig {
  const { env, line, integer, intEnv, countEnv, oneOf } = readerOf(source);
  const port = integer('PORT', 3000, 0, 65_535);
  const hubUrl = (env('HUB_URL') ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const databaseDirectUrl = env('DATABASE_DIRECT_URL');
  const list = (raw: string | undefined, lower = false) =>
    (raw ?? '')
      .split(',')
      .map((item) => (lower ? item.trim().toLowerCase() : item.trim()))
      .filter(Boolean);
  const trustedProxiesText = env('HUB_TRUSTED_PROXIES');
  let trustedProxies: BlockList | null = null;
  try {
    if (trustedProxiesText) trustedProxies = parseAddressList(trustedProxiesText, 'HUB_TRUSTED_PROXIES');
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const devProvider = line('HUB_DEV_OIDC_PROVIDER') === '1';
  const [issuer, clientId, clientSecret] = [line('OIDC_ISSUER'), line('OIDC_CLIENT_ID'), line('OIDC_CLIENT_SECRET')];
  const oidcProviderName = line('OIDC_PROVIDER_NAME') ?? (devProvider ? 'Development provider' : 'OpenID Connect');
  const oidcScope = line('OIDC_SCOPE') ?? 'openid email profile';
  const dnsProvider = oneOf('HUB_DNS_PROVIDER', ['none', 'powerdns'] as const, 'none');
  const config: HubConfig = {
    port,
    hostname: env('HOSTNAME') ?? '0.0.0.0',
    hubUrl,
    responseCacheMb: countEnv('HUB_RESPONSE_CACHE_MB', 64),
    databaseUrl: env('DATABASE_URL'),
    databasePoolSize: intEnv('DATABASE_POOL_SIZE', 10),
    databaseDirectUrl,
    databasePoolMode: oneOf(
      'DATABASE_POOL_MODE',
      ['session', 'transaction'],
      databaseDirectUrl ? 'transaction' : 'session',
    ),
    databaseReadUrls: list(env('DATABASE_READ_URL')),
    databaseReadMaxLagMs: intEnv('DATABASE_READ_MAX_LAG_MS', 5_000),
    databaseConnectTimeoutMs: intEnv('HUB_DB_CONNECT_TIMEOUT_MS', 1_000),
    databaseStatementTimeoutMs: intEnv('HUB_DB_STATEMENT_TIMEOUT_MS', 15_000),
    testPgliteSnapshot: env('HUB_TEST_PGLITE_SNAPSHOT'),
    credentialCacheTtlMs: intEnv('HUB_CREDENTIAL_CACHE_TTL_MS', 30_000),
    credentialCacheMax: intEnv('HUB_CREDENTIAL_CACHE_MAX', 100_000),
    responseCacheTtlMs: intEnv('HUB_RESPONSE_CACHE_TTL_MS', 60_000),
    responseCacheEntries: intEnv('HUB_RESPONSE_CACHE_ENTRIES', 20_000),
    metricsToken: env('HUB_METRICS_TOKEN'),
    dataDir: env('HUB_DATA_DIR') ?? './.hub-data',
    seedDemo: oneOf('HUB_SEED_DEMO', ['true', 'false'], 'true') === 'true',
    secret: env('HUB_SECRET'),
    jwtPrivateKey: env('HUB_JWT_PRIVATE_KEY')?.replace(/\\n/g, '\n'),
    jwtTtlSeconds: intEnv('HUB_JWT_TTL', 8 * 3600),
    shutdownTimeoutMs: intEnv('HUB_SHUTDOWN_TIMEOUT_MS', 25_000),
    shutdownReadyDelayMs: countEnv('HUB_SHUTDOWN_READY_DELAY_MS', 0),
    maxConnections: intEnv('HUB_MAX_CONNECTIONS', 1_000),
    headersTimeoutMs: intEnv('HUB_HEADERS_TIMEOUT_MS', 20_000),
    requestTimeoutMs: intEnv('HUB_REQUEST_TIMEOUT_MS', 60_000),
    logFd: options.logsOnStderr ? 2 : 1,
    logLevel: oneOf('HUB_LOG_LEVEL', LOG_LEVELS, 'info'),
    isDevelopment: env('NODE_ENV') === 'development',
    trustedProxies,
    rateLimits: {
      anonymous: intEnv('HUB_RATE_LIMIT_ANONYMOUS', 120),
      credential: intEnv('HUB_RATE_LIMIT_CREDENTIAL', 1_200),
      address: intEnv('HUB_RATE_LIMIT_ADDRESS', 2_400),
      failed_auth: intEnv('HUB_RATE_LIMIT_FAILED_AUTH', 20),
    },
    // Below 10 ms the sync would be a statement per request or two.
    rateLimitSyncMs: integer('HUB_RATE_LIMIT_SYNC_MS', 1_000, 10),
    quotas: {
      tickets: intEnv('HUB_QUOTA_TICKETS', 1_000),
      ticket_messages: intEnv('HUB_QUOTA_TICKET_MESSAGES', 20_000),
      addon_events: intEnv('HUB_QUOTA_ADDON_EVENTS', 1_000_000),
    },
    auth: {
      oidc:
        issuer && clientId && clientSecret
          ? { issuer, clientId, clientSecret, name: oidcProviderName, scope: oidcScope }
          : null,
      missingOidcVariables: ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'].filter((name) => !env(name)),
      devProvider,
      superadminEmails: list(line('HUB_SUPERADMIN_EMAILS'), true),
      authSecret: line('AUTH_SECRET') ?? line('NEXTAUTH_SECRET'),
      authUrlFromHubUrl: env('HUB_URL') && !env('AUTH_URL') ? `${hubUrl}/api/auth` : null,
    },
    support: {
      dnsZone: dnsZoneOf(line('HUB_DNS_ZONE') ?? 'instances.hub.internal'),
      dnsProvider,
      dnsTtl: integer('HUB_DNS_TTL', 60, 1, 86_400),
      powerdns:
        dnsProvider === 'powerdns'
          ? powerdnsOf(line('HUB_PDNS_API_URL'), line('HUB_PDNS_API_KEY'), line('HUB_PDNS_SERVER_ID') ?? 'localhost')
          : null,
    },
    allowPrivateUpstreams: line('HUB_ALLOW_PRIVATE_UPSTREAMS') === 'true',
    allowInsecureMcpUrl: line('HUB_ALLOW_INSECURE_MCP_URL') === 'true',
    mcpConnectTimeoutMs: intEnv('HUB_MCP_CONNECT_TIMEOUT_MS', 5_000),
    mcpResponseTimeoutMs: intEnv('HUB_MCP_RESPONSE_TIMEOUT_MS', 30_000),
    mcpMaxStreamsPerToken: intEnv('HUB_MCP_MAX_STREAMS_PER_TOKEN', 64),
    mcpMaxStreamsPerUser: intEnv('HUB_MCP_MAX_STREAMS_PER_USER', 128),
    mcpMaxResponseBytes: intEnv('HUB_MCP_MAX_RESPONSE_BYTES', 16 * 1024 * 1024),
    mcpIdleTimeoutMs: intEnv('HUB_MCP_IDLE_TIMEOUT_MS', 100_000),
  };
  return deepFreeze(config);
}

function dnsZoneOf(raw: string) {
  const zone = raw.toLowerCase().replace(/\.$/, '');
  if (zone.length > 189 || !zone.split('.').every((label) => DNS_LABEL.test(label))) {
    throw new ConfigError(
      `HUB_DNS_ZONE "${zone}" is not a valid DNS zone name (letters, digits, hyphens; at most 189 characters)`,
    );
  }
  return zone;
}

function powerdnsOf(apiUrl: string | undefined, apiKey: string | undefined, serverId: string) {
  if (!apiUrl || !apiKey)
    throw new ConfigError('HUB_DNS_PROVIDER=powerdns needs HUB_PDNS_API_URL and HUB_PDNS_API_KEY');
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new ConfigError(`HUB_PDNS_API_URL "${apiUrl}" is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('HUB_PDNS_API_URL must be http(s)');
  // Accept the server's base address with or without the /api/v1 suffix.
  const base = url
    .toString()
    .replace(/\/+$/, '')
    .replace(/\/api\/v1$/, '');
  return { apiUrl: base, apiKey, serverId };
}

function deepFreeze<T extends object>(value: T): T {
  for (const inner of Object.values(value))
    if (inner && typeof inner === 'object' && !Object.isFrozen(inner) && !isBlockList(inner)) deepFreeze(inner);
  return Object.freeze(value);
}

/** A BlockList keeps its rules in private state: freezing the wrapper would only get in its way. */
const isBlockList = (value: object) => value.constructor?.name === 'BlockList';

let logsOnStderr = false;
let loaded: HubConfig | undefined;

/** The CLI, before anything logs (server/cliLogs.ts): its stdout is its result, so its logs go to stderr. */
export function sendLogsToStderr() {
  logsOnStderr = true;
  loaded = undefined;
}

/**
 * Parses the environment again. Tests call it after changing process.env (tests/setup.ts does at the start and
 * end of each test, and when it restores what a file changed); a running server never does.
 */
export function reloadConfig(): HubConfig {
  loaded = undefined;
  return current();
}

function current(): HubConfig {
  return (loaded ??= loadConfig(process.env, { logsOnStderr }));
}

/**
 * The Hub's configuration, parsed from process.env on first use. One getter per setting (the names from a parse of an
 * empty environment), each returning the parsed object's value: reads V8 inlines, cheaper than a Proxy's trap.
 */
export const config: HubConfig = Object.freeze(
  Object.defineProperties(
    {},
    Object.fromEntries(
      Object.keys(loadConfig({})).map((key) => [
        key,
        { enumerable: true, get: () => current()[key as keyof HubConfig] },
      ]),
    ),
  ),
) as HubConfig;

/** Audience of Hub API JWTs (sessions and script tokens). */
export const HUB_API_AUDIENCE = 'hub-api';

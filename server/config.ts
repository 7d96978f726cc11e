/**
 * The Hub's configuration: every setting it reads from the environment, through one reader (readEnv) and typed
 * here, so this file and the table in docs/hub.md (Configuration) are the two places that list them. Read
 * through getters so that tests and the CLI can set variables before first use; the production server fixes the
 * environment at start (fixEnvironment). Only CLI entry points and Next.js' own hooks read process.env elsewhere.
 */
import type { BlockList } from 'node:net';
import { parseAddressList } from '@shared/ops';

/** Once the production server has fixed the environment (fixEnvironment): each variable as first read. */
let fixedEnvironment: Map<string, string | undefined> | null = null;

/**
 * A variable of the environment, as every setting of the Hub reads it. Until fixEnvironment() each read goes to
 * process.env, so that tests and the CLI can set variables before first use; after it, each variable is read once:
 * process.env is a call into C++ (~0.5 µs), and the settings are read on every request (the MCP proxy read a dozen).
 */
export function readEnv(name: string): string | undefined {
  let value: string | undefined;
  if (fixedEnvironment === null) value = process.env[name];
  else {
    if (!fixedEnvironment.has(name)) fixedEnvironment.set(name, process.env[name]);
    value = fixedEnvironment.get(name);
  }
  return value?.trim() ? value : undefined; // set but empty (or blanks) counts as unset, for every setting alike
}

let logsOnStderr = false;

/** The CLI, before anything logs (server/cliLogs.ts): its stdout is its result, so its logs go to stderr. */
export function sendLogsToStderr() {
  logsOnStderr = true;
}

/** A setting that cannot be used: at start it stops the process; met by a request, it is logged and answered 500. */
export class ConfigError extends Error {}

/**
 * The production server, at start: its environment is fixed for the life of the process (server/http/serve.ts).
 * `false` puts every read back on process.env (tests).
 */
export function fixEnvironment(fixed = true) {
  fixedEnvironment = fixed ? (fixedEnvironment ?? new Map()) : null;
}

const env = readEnv;
/** A setting that is a name, URL or credential given on a line: surrounding blanks are not part of it. */
const line = (name: string) => readEnv(name)?.trim();

function intEnv(name: string, fallback: number): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** Like intEnv, but 0 is allowed (it turns the feature off). */
function countEnv(name: string, fallback: number): number {
  const raw = env(name);
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be 0 or a positive integer, got "${raw}"`);
  return value;
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  name: string;
  scope: string;
}

const DNS_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
let cachedProxies: { raw: string; list: BlockList } | undefined;

export const config = {
  get port() {
    // 0: any free port (tests; the listening log line names the one chosen).
    const port = countEnv('PORT', 3000);
    if (port > 65_535) throw new ConfigError(`PORT must be 0-65535, got "${port}"`);
    return port;
  },
  /** The production server's listening address. */
  get hostname() {
    return env('HOSTNAME') ?? '0.0.0.0';
  },
  /** Public base URL of the Hub; also the issuer of every JWT it signs. */
  get hubUrl() {
    return (env('HUB_URL') ?? `http://localhost:${this.port}`).replace(/\/+$/, '');
  },
  /** Megabytes of catalog answers the response cache keeps per process; 0 turns it off (every answer computed). */
  get responseCacheMb() {
    return countEnv('HUB_RESPONSE_CACHE_MB', 64);
  },
  get databaseUrl() {
    return env('DATABASE_URL');
  },
  /** Tests only (tests/global-setup.ts): a migrated PGlite snapshot that in-memory databases start from. */
  get testPgliteSnapshot() {
    return env('HUB_TEST_PGLITE_SNAPSHOT');
  },
  get databasePoolSize() {
    return intEnv('DATABASE_POOL_SIZE', 10);
  },
  /**
   * PostgreSQL without a pooler in between, for what needs a session of its own: the migration lock and LISTEN
   * (docs/operating-at-scale.md). Unset: DATABASE_URL is used for them.
   */
  get databaseDirectUrl() {
    return env('DATABASE_DIRECT_URL');
  },
  /**
   * "transaction" when DATABASE_URL is a pooler in transaction mode (PgBouncer pool_mode = transaction): no named
   * prepared statements, no session settings at connect (the pooler sets them), DATABASE_DIRECT_URL required.
   * Default: "transaction" when DATABASE_DIRECT_URL is set, else "session".
   */
  get databasePoolMode(): 'session' | 'transaction' {
    const raw = env('DATABASE_POOL_MODE');
    if (raw === undefined) return this.databaseDirectUrl ? 'transaction' : 'session';
    if (raw === 'session' || raw === 'transaction') return raw;
    throw new Error(`DATABASE_POOL_MODE must be session or transaction, got "${raw}"`);
  },
  /** Streaming replicas for the catalog reads of anonymous and instance-key callers: URLs, comma-separated. */
  get databaseReadUrls(): string[] {
    return (env('DATABASE_READ_URL') ?? '')
      .split(',')
      .map((url) => url.trim())
      .filter(Boolean);
  },
  /** A replica further behind the primary than this (milliseconds) is skipped until it catches up. */
  get databaseReadMaxLagMs() {
    return intEnv('DATABASE_READ_MAX_LAG_MS', 5_000);
  },
  /** PostgreSQL: milliseconds to open a connection before the request is answered 503. */
  get databaseConnectTimeoutMs() {
    return intEnv('HUB_DB_CONNECT_TIMEOUT_MS', 1_000);
  },
  /** PostgreSQL: statement_timeout of every connection, in milliseconds. */
  get databaseStatementTimeoutMs() {
    return intEnv('HUB_DB_STATEMENT_TIMEOUT_MS', 15_000);
  },
  /**
   * Credential cache: milliseconds a secret's look-up is kept (revocations and changes still end it at once,
   * through the 'auth' generation). A fleet polling every minute wants more than its poll interval.
   */
  get credentialCacheTtlMs() {
    return intEnv('HUB_CREDENTIAL_CACHE_TTL_MS', 30_000);
  },
  /** Credential cache: most secrets kept per process (about 300 bytes each): at least the fleet's instance keys. */
  get credentialCacheMax() {
    return intEnv('HUB_CREDENTIAL_CACHE_MAX', 100_000);
  },
  /**
   * Response cache: how long an answer is kept at most. Catalog writes end it at once; the TTL bounds what changes
   * without one (download counts). An organization whose full syncs come more often than this gets its list pages
   * from memory; less often, from the database each time.
   */
  get responseCacheTtlMs() {
    return intEnv('HUB_RESPONSE_CACHE_TTL_MS', 60_000);
  },
  /** Response cache: most answers kept per process (within HUB_RESPONSE_CACHE_MB). */
  get responseCacheEntries() {
    return intEnv('HUB_RESPONSE_CACHE_ENTRIES', 20_000);
  },
  /** Bearer token of GET /metrics (Prometheus); unset: /metrics answers 404. */
  get metricsToken() {
    return env('HUB_METRICS_TOKEN');
  },
  /** Embedded database folder when DATABASE_URL is unset; "memory://" keeps it in memory. */
  get dataDir() {
    return env('HUB_DATA_DIR') ?? './.hub-data';
  },
  /**
   * Embedded database: load the demo catalog when a Hub server first starts on a new data folder
   * ("false" starts it empty). Never with DATABASE_URL.
   */
  get seedDemo() {
    const raw = env('HUB_SEED_DEMO');
    if (raw === undefined || raw === 'true') return true;
    if (raw === 'false') return false;
    throw new Error(`HUB_SEED_DEMO must be true or false, got "${raw}"`);
  },
  /** Master secret for encrypting stored secrets; generated and kept in the database when unset. */
  get secret() {
    return env('HUB_SECRET');
  },
  /** PEM (PKCS#8) EC P-256 private key for signing JWTs; generated and kept in the database when unset. */
  get jwtPrivateKey() {
    return env('HUB_JWT_PRIVATE_KEY')?.replace(/\\n/g, '\n');
  },
  /** Lifetime of session and script JWTs, in seconds. */
  get jwtTtlSeconds() {
    return intEnv('HUB_JWT_TTL', 8 * 3600);
  },
  /** SIGTERM: milliseconds to let in-flight requests and streams finish before they are cut. */
  get shutdownTimeoutMs() {
    return intEnv('HUB_SHUTDOWN_TIMEOUT_MS', 25_000);
  },
  /**
   * SIGTERM: milliseconds to go on serving while /readyz already answers 503, before the listening socket
   * closes: load balancers that route by health checks take the process out first (Kubernetes: like a
   * preStop sleep). 0: close at once (balancers that retry a refused connection need no more).
   */
  get shutdownReadyDelayMs() {
    return countEnv('HUB_SHUTDOWN_READY_DELAY_MS', 0);
  },
  /** Production server: most open client connections at once (more are refused at accept). */
  get maxConnections() {
    return intEnv('HUB_MAX_CONNECTIONS', 1_000);
  },
  /** Production server: milliseconds to receive a request's headers, and the whole request (not the answer). */
  get headersTimeoutMs() {
    return intEnv('HUB_HEADERS_TIMEOUT_MS', 20_000);
  },
  get requestTimeoutMs() {
    return intEnv('HUB_REQUEST_TIMEOUT_MS', 60_000);
  },
  /** Where the logs go: stdout (1), or stderr (2) in the CLI, whose stdout carries its result. */
  get logFd(): 1 | 2 {
    return logsOnStderr ? 2 : 1;
  },
  /** pino log level: fatal, error, warn, info, debug, trace or silent. */
  get logLevel() {
    return env('HUB_LOG_LEVEL') ?? 'info';
  },
  get isProduction() {
    return readEnv('NODE_ENV') === 'production';
  },
  /** `next dev`: pages allow what its hot reload needs (server/http/securityHeaders.ts pageCsp). */
  get isDevelopment() {
    return readEnv('NODE_ENV') === 'development';
  },
  /**
   * HUB_TRUSTED_PROXIES: the reverse proxies (addresses and CIDR ranges, comma or space separated) whose
   * X-Forwarded-For entries are believed when finding a request's client address; null when unset.
   */
  get trustedProxies(): BlockList | null {
    const raw = env('HUB_TRUSTED_PROXIES');
    if (!raw) return null;
    if (cachedProxies?.raw === raw) return cachedProxies.list;
    let list: BlockList;
    try {
      list = parseAddressList(raw, 'HUB_TRUSTED_PROXIES');
    } catch (err) {
      throw new ConfigError((err as Error).message);
    }
    cachedProxies = { raw, list };
    return list;
  },
  /** Sign-in: the OpenID Connect provider, the development provider, superadmins, NextAuth's secret. */
  auth: {
    /** The configured provider (OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET), or null when not fully set. */
    get oidc(): OidcSettings | null {
      const issuer = line('OIDC_ISSUER');
      const clientId = line('OIDC_CLIENT_ID');
      const clientSecret = line('OIDC_CLIENT_SECRET');
      if (!issuer || !clientId || !clientSecret) return null;
      return {
        issuer,
        clientId,
        clientSecret,
        name: line('OIDC_PROVIDER_NAME') ?? (this.devProvider ? 'Development provider' : 'OpenID Connect'),
        scope: line('OIDC_SCOPE') ?? 'openid email profile',
      };
    },
    /** Which OIDC_* variables are unset, to explain a partial configuration. */
    get missingOidcVariables(): string[] {
      return ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'].filter((n) => !env(n));
    },
    /** HUB_DEV_OIDC_PROVIDER=1 (set by `npm start`): anyone signs in, and the first user becomes superadmin. */
    get devProvider(): boolean {
      return line('HUB_DEV_OIDC_PROVIDER') === '1';
    },
    /** HUB_SUPERADMIN_EMAILS: comma-separated; these people become superadmin when they sign in. */
    get superadminEmails(): string[] {
      return (line('HUB_SUPERADMIN_EMAILS') ?? '')
        .split(',')
        .map((e) => e.trim().toLowerCase())
        .filter(Boolean);
    },
    /** AUTH_SECRET (or NEXTAUTH_SECRET); unset: derived from the Hub's master secret. */
    get authSecret(): string | undefined {
      return line('AUTH_SECRET') ?? line('NEXTAUTH_SECRET');
    },
  },
  /** The instance support surface: dynamic DNS of instance hostnames. */
  support: {
    /** HUB_DNS_ZONE: lower-case, without a trailing dot; a DNS name with room for a 63-character label. */
    get dnsZone(): string {
      const zone = (line('HUB_DNS_ZONE') ?? 'instances.hub.internal').toLowerCase().replace(/\.$/, '');
      if (zone.length > 189 || !zone.split('.').every((label) => DNS_LABEL.test(label))) {
        throw new ConfigError(
          `HUB_DNS_ZONE "${zone}" is not a valid DNS zone name (letters, digits, hyphens; at most 189 characters)`,
        );
      }
      return zone;
    },
    /** HUB_DNS_PROVIDER: none (the database only) or powerdns. */
    get dnsProvider(): 'none' | 'powerdns' {
      const value = (line('HUB_DNS_PROVIDER') ?? 'none').toLowerCase();
      if (value !== 'none' && value !== 'powerdns')
        throw new ConfigError(`HUB_DNS_PROVIDER must be "none" or "powerdns", got "${value}"`);
      return value;
    },
    /** HUB_DNS_TTL: seconds, of the published A/AAAA records. */
    get dnsTtl(): number {
      const raw = line('HUB_DNS_TTL') ?? '60';
      const ttl = Number(raw);
      if (!Number.isInteger(ttl) || ttl < 1 || ttl > 86_400)
        throw new ConfigError(`HUB_DNS_TTL must be 1..86400 seconds, got "${raw}"`);
      return ttl;
    },
    /** HUB_PDNS_API_URL, HUB_PDNS_API_KEY, HUB_PDNS_SERVER_ID: the PowerDNS Authoritative API (powerdns only). */
    get powerdns(): { apiUrl: string; apiKey: string; serverId: string } {
      const apiUrl = line('HUB_PDNS_API_URL');
      const apiKey = line('HUB_PDNS_API_KEY');
      if (!apiUrl || !apiKey)
        throw new ConfigError('HUB_DNS_PROVIDER=powerdns needs HUB_PDNS_API_URL and HUB_PDNS_API_KEY');
      let url: URL;
      try {
        url = new URL(apiUrl);
      } catch {
        throw new ConfigError(`HUB_PDNS_API_URL "${apiUrl}" is not a URL`);
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new ConfigError('HUB_PDNS_API_URL must be http(s)');
      // Accept the server's base address with or without the /api/v1 suffix.
      const base = url
        .toString()
        .replace(/\/+$/, '')
        .replace(/\/api\/v1$/, '');
      return { apiUrl: base, apiKey, serverId: line('HUB_PDNS_SERVER_ID') ?? 'localhost' };
    },
  },
  /**
   * MCP proxy: the Hub refuses instance MCP URLs that resolve to loopback, private, link-local or
   * metadata addresses unless this is "true" (set it in development and tests to reach a loopback instance,
   * or in production when instances live on a private network the operator trusts).
   */
  get allowPrivateUpstreams() {
    return line('HUB_ALLOW_PRIVATE_UPSTREAMS') === 'true';
  },
  /**
   * Instance reports: a plain http:// mcp_url is refused unless its host is loopback, because the proxied calls (and
   * the secret values in their answers) would cross the network in clear; "true" allows it (a private network the
   * operator trusts). The edge logs a warning at start while it is set.
   */
  get allowInsecureMcpUrl() {
    return line('HUB_ALLOW_INSECURE_MCP_URL') === 'true';
  },
  /** MCP proxy: milliseconds to open the TCP/TLS connection to an instance before answering 504. */
  get mcpConnectTimeoutMs() {
    return intEnv('HUB_MCP_CONNECT_TIMEOUT_MS', 5_000);
  },
  /** MCP proxy: milliseconds until the instance's response headers arrive (once started, HUB_MCP_IDLE_TIMEOUT_MS applies). */
  get mcpResponseTimeoutMs() {
    return intEnv('HUB_MCP_RESPONSE_TIMEOUT_MS', 30_000);
  },
  /** MCP proxy: most calls and streams one personal access token may have open at once (per Hub process); more → 429. */
  get mcpMaxStreamsPerToken() {
    return intEnv('HUB_MCP_MAX_STREAMS_PER_TOKEN', 64);
  },
  /**
   * MCP proxy: most calls and streams one person may have open at once over all their personal access tokens (per Hub
   * process); more → 429. Without it, one account's tokens (up to 10 live per instance, server/domain/pats.ts) times
   * HUB_MCP_MAX_STREAMS_PER_TOKEN could hold every connection of the process (HUB_MAX_CONNECTIONS).
   */
  get mcpMaxStreamsPerUser() {
    return intEnv('HUB_MCP_MAX_STREAMS_PER_USER', 128);
  },
  /** MCP proxy: most bytes relayed in one response (one POST's answer or one GET stream); beyond it the response is cut. */
  get mcpMaxResponseBytes() {
    return intEnv('HUB_MCP_MAX_RESPONSE_BYTES', 16 * 1024 * 1024);
  },
  /** MCP proxy: a started response from which nothing arrives for this long is closed (a stalled instance cannot pin sockets). */
  get mcpIdleTimeoutMs() {
    return intEnv('HUB_MCP_IDLE_TIMEOUT_MS', 100_000);
  },
};

/** Audience of Hub API JWTs (sessions and script tokens). */
export const HUB_API_AUDIENCE = 'hub-api';

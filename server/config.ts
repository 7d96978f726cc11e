/**
 * Configuration from the environment. Read through getters so that tests and the CLI can set
 * variables before first use; every setting is listed in the README's configuration table.
 */

/** Once the production server has fixed the environment (fixEnvironment): each variable as first read. */
let fixedEnvironment: Map<string, string | undefined> | null = null;

/**
 * A variable of the environment, as every setting of the Hub reads it. Until fixEnvironment() each read goes to
 * process.env, so that tests and the CLI can set variables before first use; after it, each variable is read once:
 * process.env is a call into C++ (~0.5 µs), and the settings are read on every request (the MCP proxy read a dozen).
 */
export function readEnv(name: string): string | undefined {
  if (fixedEnvironment === null) return process.env[name];
  if (!fixedEnvironment.has(name)) fixedEnvironment.set(name, process.env[name]);
  return fixedEnvironment.get(name);
}

/**
 * The production server, at start: its environment is fixed for the life of the process (server/http/serve.ts).
 * `false` puts every read back on process.env (tests).
 */
export function fixEnvironment(fixed = true) {
  fixedEnvironment = fixed ? (fixedEnvironment ?? new Map()) : null;
}

function env(name: string): string | undefined {
  const value = readEnv(name);
  return value === undefined || value === '' ? undefined : value;
}

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

export const config = {
  get port() {
    return intEnv('PORT', 3000);
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
  /** pino log level: fatal, error, warn, info, debug, trace or silent. */
  get logLevel() {
    return env('HUB_LOG_LEVEL') ?? 'info';
  },
  get isProduction() {
    return readEnv('NODE_ENV') === 'production';
  },
  /**
   * MCP proxy: the Hub refuses instance MCP URLs that resolve to loopback, private, link-local or
   * metadata addresses unless this is "true" (set it in development and tests to reach a loopback instance,
   * or in production when instances live on a private network the operator trusts).
   */
  get allowPrivateUpstreams() {
    return env('HUB_ALLOW_PRIVATE_UPSTREAMS') === 'true';
  },
  /**
   * Instance reports: a plain http:// mcp_url is refused unless its host is loopback, because the proxied calls (and
   * the secret values in their answers) would cross the network in clear; "true" allows it (a private network the
   * operator trusts). The edge logs a warning at start while it is set.
   */
  get allowInsecureMcpUrl() {
    return env('HUB_ALLOW_INSECURE_MCP_URL') === 'true';
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

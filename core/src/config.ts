/**
 * Core's configuration, read from the environment once. Everything else receives a CoreConfig
 * (tests build their own), never process.env.
 */
import type { BlockList } from 'node:net';
import path from 'node:path';
import { parseAddressList } from '@shared/ops';
import { describeMalformed } from '@shared/tokens';
import { z } from 'zod';
import { masterSecretRequiredMessage } from '@shared/seal';

export const ROLES = ['admin', 'readonly'] as const;
export type Role = (typeof ROLES)[number];

export interface OidcEnvConfig {
  issuer: string;
  clientId: string;
  audience: string | null;
  scopes: string;
}

export interface CoreConfig {
  port: number;
  host: string;
  /** Public base URL; also the issuer of Core's own session tokens. */
  url: string;
  databaseUrl: string | null;
  /** PGlite data directory; null = in memory (tests). */
  dataDir: string | null;
  secret: string | null;
  temporaryAdmin: { username: string; password: string } | null;
  /** OIDC from the environment (wins over settings). */
  oidc: OidcEnvConfig | null;
  oidcDefaultRole: Role;
  oidcAdminGroups: string[];
  /** Core's confidential client at the provider, for token introspection (RFC 7662) of opaque access tokens. */
  oidcIntrospection: { clientId: string; clientSecret: string } | null;
  /** Accept an opaque token whenever the provider's userinfo answers for it (off: see docs/core-security.md). */
  oidcAcceptUserinfoTokens: boolean;
  /** Built frontend served at `/` when it exists. */
  webDist: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  version: string;
  /** The Hub connection from CORE_HUB_URL + CORE_HUB_INSTANCE_KEY (wins over settings). */
  hub: { url: string; instanceKey: string } | null;
  hubDns: boolean;
  hubSyncIntervalSeconds: number;
  /** Bearer token of GET /metrics; null or absent: /metrics answers 404. */
  metricsToken?: string | null;
  /** CORE_TRUSTED_PROXIES: reverse proxies whose X-Forwarded-For entries name the client (as the Hub's HUB_TRUSTED_PROXIES). */
  trustedProxies: BlockList | null;
  /** The container engine (docs/core-runtime.md). */
  runtime: RuntimeConfig;
  /**
   * The line of strange clients' sign-ins per username (domain/loginPacing.ts); no variable sets it, tests shorten
   * it. Unset: 250 ms per failure from the 10th, at most 5 s, 6 waiting.
   */
  loginPacing?: { stepMs: number; maxMs: number; queueMax: number };
  /**
   * Tests only (CORE_TEST_PGLITE_SNAPSHOT, set by core/tests/global-setup.ts): an in-memory database starts from this
   * migrated snapshot instead of initdb and every migration. Null or absent: a fresh one.
   */
  pgliteSnapshot?: string | null;
}

export interface RuntimeConfig {
  /** CORE_RUNTIME: docker, none, or auto (unset: docker when an engine answers at start, else none). */
  mode: 'docker' | 'none' | 'auto';
  /** DOCKER_HOST as given (null: the engine's default socket); DOCKER_TLS_VERIFY/DOCKER_CERT_PATH ride along. */
  dockerHost: string | null;
  dockerTlsVerify: boolean;
  dockerCertPath: string | null;
  /** CORE_CONTAINER_ULIMITS, e.g. nofile=1024:1024,nproc=1024:1024. */
  ulimits: { name: string; soft: number; hard: number }[];
  /** CORE_PUBLISH_ADDRESS: where container ports are published on the host. */
  publishAddress: string;
  /** CORE_NODE_LABELS: this host's labels, matched against a template's node_selector. */
  nodeLabels: Record<string, string>;
  /** CORE_RECONCILE_INTERVAL: seconds between the safety-net passes. */
  reconcileIntervalSeconds: number;
}

/** `nofile=1024:1024,nproc=512` → ulimits (soft:hard, or one number for both); throws a message naming the problem. */
export function parseUlimits(text: string): RuntimeConfig['ulimits'] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((item) => {
      const m = /^([a-z_]+)=(\d+)(?::(\d+))?$/.exec(item);
      if (!m)
        throw new Error(
          `CORE_CONTAINER_ULIMITS: ${JSON.stringify(item)} is not name=soft:hard (e.g. nofile=1024:1024,nproc=1024:1024)`,
        );
      const soft = Number(m[2]);
      const hard = m[3] === undefined ? soft : Number(m[3]);
      if (soft > hard) throw new Error(`CORE_CONTAINER_ULIMITS: ${item}: the soft limit is above the hard one`);
      return { name: m[1]!, soft, hard };
    });
}

/** `zone=eu,gpu=a100` → labels; throws a message naming the problem. */
export function parseNodeLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const item of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const at = item.indexOf('=');
    if (at <= 0) throw new Error(`CORE_NODE_LABELS: ${JSON.stringify(item)} is not key=value (e.g. zone=eu,gpu=a100)`);
    labels[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return labels;
}

const ROOT = path.resolve(import.meta.dirname, '..');
export const CORE_ROOT = ROOT;

/**
 * Trust anchors (the Hub URL, the OIDC issuer) must be https: over plain http anyone on the path could serve
 * their own JWKS and sign assertions or tokens for anyone. Loopback is exempt (development, tests), as in the
 * browser's sign-in. Returns the problem, or null.
 */
export function insecureTrustAnchor(url: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'must be a URL';
  }
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol !== 'http:') return 'must be an https:// URL';
  const host = parsed.hostname;
  const loopback = host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
  return loopback
    ? null
    : 'must be https:// (plain http:// is accepted on loopback only: on the path, anyone could sign for it)';
}

/** The local users' minimum (domain/users.ts PASSWORD_MIN); config cannot import the domain. */
export const TEMPORARY_ADMIN_PASSWORD_MIN = 12;

const nonEmpty = (v: string | undefined) => (v === undefined || v.trim() === '' ? undefined : v);

const envSchema = z.object({
  CORE_PORT: z.coerce.number().int().min(0).max(65535).default(4000),
  CORE_HOST: z.string().default('0.0.0.0'),
  CORE_URL: z.url().optional(),
  CORE_DATABASE_URL: z.string().optional(),
  CORE_DATA_DIR: z.string().default('./.core-data'),
  CORE_SECRET: z.string().min(16, 'CORE_SECRET must be at least 16 characters').optional(),
  SVC_TEMP_ADMIN_USERNAME: z.string().optional(),
  SVC_TEMP_ADMIN_PASSWORD: z.string().optional(),
  CORE_OIDC_ISSUER: z.url().optional(),
  CORE_OIDC_CLIENT_ID: z.string().optional(),
  CORE_OIDC_AUDIENCE: z.string().optional(),
  CORE_OIDC_SCOPES: z.string().default('openid profile email offline_access'),
  CORE_OIDC_DEFAULT_ROLE: z
    .enum(ROLES, { error: 'CORE_OIDC_DEFAULT_ROLE must be admin or readonly' })
    .default('readonly'),
  CORE_OIDC_ADMIN_GROUPS: z.string().default(''),
  CORE_OIDC_INTROSPECTION_CLIENT_ID: z.string().optional(),
  CORE_OIDC_INTROSPECTION_CLIENT_SECRET: z.string().optional(),
  CORE_OIDC_ACCEPT_USERINFO_TOKENS: z
    .enum(['true', 'false'], { error: 'CORE_OIDC_ACCEPT_USERINFO_TOKENS must be true or false' })
    .default('false'),
  CORE_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  CORE_TRUSTED_PROXIES: z.string().optional(),
  CORE_HUB_URL: z.url().optional(),
  CORE_HUB_INSTANCE_KEY: z.string().optional(),
  CORE_HUB_DNS: z.enum(['true', 'false'], { error: 'CORE_HUB_DNS must be true or false' }).default('false'),
  CORE_METRICS_TOKEN: z.string().min(16, 'CORE_METRICS_TOKEN must be at least 16 characters').optional(),
  CORE_HUB_SYNC_INTERVAL: z.coerce
    .number()
    .int()
    .min(1, 'CORE_HUB_SYNC_INTERVAL must be at least 1 second')
    .max(86_400)
    .default(60),
  CORE_RUNTIME: z.enum(['docker', 'none'], { error: 'CORE_RUNTIME must be docker or none' }).optional(),
  DOCKER_HOST: z
    .string()
    .regex(/^(unix|tcp|npipe|http|https|ssh):\/\//, 'DOCKER_HOST must be unix:///path/to.sock or tcp://host:port')
    .optional(),
  DOCKER_TLS_VERIFY: z.string().optional(),
  DOCKER_CERT_PATH: z.string().optional(),
  CORE_CONTAINER_ULIMITS: z.string().default(''),
  CORE_PUBLISH_ADDRESS: z
    .union([z.ipv4(), z.ipv6()], { error: 'CORE_PUBLISH_ADDRESS must be an IP address' })
    .default('127.0.0.1'),
  CORE_NODE_LABELS: z.string().default(''),
  CORE_RECONCILE_INTERVAL: z.coerce
    .number()
    .min(0.1, 'CORE_RECONCILE_INTERVAL must be at least 0.1 second')
    .max(3600)
    .default(5),
  CORE_TEST_PGLITE_SNAPSHOT: z.string().optional(),
});

/** The refusal on a database server without CORE_SECRET (see domain/crypto.ts). */
export const MASTER_SECRET_REQUIRED = masterSecretRequiredMessage({
  secretVar: 'CORE_SECRET',
  urlVar: 'CORE_DATABASE_URL',
  table: 'core_settings',
  service: 'Core',
});

export function configFromEnv(env: Record<string, string | undefined> = process.env): CoreConfig {
  const cleaned = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, nonEmpty(v)]));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
  const e = parsed.data;
  if (e.CORE_OIDC_ISSUER && !e.CORE_OIDC_CLIENT_ID)
    throw new Error('CORE_OIDC_CLIENT_ID is required with CORE_OIDC_ISSUER');
  if (!e.CORE_OIDC_INTROSPECTION_CLIENT_ID !== !e.CORE_OIDC_INTROSPECTION_CLIENT_SECRET) {
    throw new Error(
      'CORE_OIDC_INTROSPECTION_CLIENT_ID and CORE_OIDC_INTROSPECTION_CLIENT_SECRET go together: set both or neither',
    );
  }
  if (
    e.SVC_TEMP_ADMIN_USERNAME !== undefined &&
    e.SVC_TEMP_ADMIN_PASSWORD !== undefined &&
    env.SVC_TEMP_ADMIN_PASSWORD!.length < TEMPORARY_ADMIN_PASSWORD_MIN
  ) {
    throw new Error(
      `SVC_TEMP_ADMIN_PASSWORD is shorter than ${TEMPORARY_ADMIN_PASSWORD_MIN} characters (the minimum for local users): ` +
        'choose a longer one, e.g. `openssl rand -base64 18`, and start Core again',
    );
  }
  for (const name of ['CORE_HUB_URL', 'CORE_OIDC_ISSUER'] as const) {
    const problem = e[name] ? insecureTrustAnchor(e[name]) : null;
    if (problem) throw new Error(`${name} ${problem}: ${e[name]}`);
  }
  // Before any connection: a database server never holds the key to its own secrets (domain/crypto.ts).
  if (e.CORE_DATABASE_URL && !e.CORE_SECRET) throw new Error(MASTER_SECRET_REQUIRED);
  if (!e.CORE_HUB_URL !== !e.CORE_HUB_INSTANCE_KEY)
    throw new Error('CORE_HUB_URL and CORE_HUB_INSTANCE_KEY go together: set both or neither');
  const keyProblem = e.CORE_HUB_INSTANCE_KEY ? describeMalformed(e.CORE_HUB_INSTANCE_KEY, 'svh_') : null;
  if (keyProblem)
    throw new Error(
      `CORE_HUB_INSTANCE_KEY is not a Hub instance key: it ${keyProblem}. Copy the whole key (svh_…) the Hub showed when the key was created.`,
    );
  return {
    port: e.CORE_PORT,
    host: e.CORE_HOST,
    url: (e.CORE_URL ?? `http://localhost:${e.CORE_PORT}`).replace(/\/+$/, ''),
    databaseUrl: e.CORE_DATABASE_URL ?? null,
    dataDir: path.resolve(e.CORE_DATA_DIR),
    secret: e.CORE_SECRET ?? null,
    // Exactly while both variables are set.
    temporaryAdmin:
      e.SVC_TEMP_ADMIN_USERNAME !== undefined && e.SVC_TEMP_ADMIN_PASSWORD !== undefined
        ? { username: env.SVC_TEMP_ADMIN_USERNAME!, password: env.SVC_TEMP_ADMIN_PASSWORD! }
        : null,
    oidc:
      e.CORE_OIDC_ISSUER && e.CORE_OIDC_CLIENT_ID
        ? {
            issuer: e.CORE_OIDC_ISSUER,
            clientId: e.CORE_OIDC_CLIENT_ID,
            audience: e.CORE_OIDC_AUDIENCE ?? null,
            scopes: e.CORE_OIDC_SCOPES,
          }
        : null,
    oidcDefaultRole: e.CORE_OIDC_DEFAULT_ROLE,
    oidcAdminGroups: e.CORE_OIDC_ADMIN_GROUPS.split(',')
      .map((g) => g.trim())
      .filter(Boolean),
    oidcIntrospection:
      e.CORE_OIDC_INTROSPECTION_CLIENT_ID && e.CORE_OIDC_INTROSPECTION_CLIENT_SECRET
        ? { clientId: e.CORE_OIDC_INTROSPECTION_CLIENT_ID, clientSecret: e.CORE_OIDC_INTROSPECTION_CLIENT_SECRET }
        : null,
    oidcAcceptUserinfoTokens: e.CORE_OIDC_ACCEPT_USERINFO_TOKENS === 'true',
    webDist: path.join(ROOT, 'web', 'dist'),
    logLevel: e.CORE_LOG_LEVEL,
    version: '0.1.0',
    hub:
      e.CORE_HUB_URL && e.CORE_HUB_INSTANCE_KEY
        ? { url: e.CORE_HUB_URL.replace(/\/+$/, ''), instanceKey: e.CORE_HUB_INSTANCE_KEY }
        : null,
    hubDns: e.CORE_HUB_DNS === 'true',
    hubSyncIntervalSeconds: e.CORE_HUB_SYNC_INTERVAL,
    metricsToken: e.CORE_METRICS_TOKEN ?? null,
    pgliteSnapshot: e.CORE_TEST_PGLITE_SNAPSHOT ?? null,
    trustedProxies: e.CORE_TRUSTED_PROXIES ? parseAddressList(e.CORE_TRUSTED_PROXIES, 'CORE_TRUSTED_PROXIES') : null,
    runtime: {
      mode: e.CORE_RUNTIME ?? 'auto',
      dockerHost: e.DOCKER_HOST ?? null,
      dockerTlsVerify: e.DOCKER_TLS_VERIFY !== undefined && e.DOCKER_TLS_VERIFY !== '0',
      dockerCertPath: e.DOCKER_CERT_PATH ?? null,
      ulimits: parseUlimits(e.CORE_CONTAINER_ULIMITS),
      publishAddress: e.CORE_PUBLISH_ADDRESS,
      nodeLabels: parseNodeLabels(e.CORE_NODE_LABELS),
      reconcileIntervalSeconds: e.CORE_RECONCILE_INTERVAL,
    },
  };
}

/**
 * Core's configuration, read from the environment once. Everything else receives a CoreConfig
 * (tests build their own), never process.env.
 */
import path from 'node:path';
import { z } from 'zod';

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
  /** Built frontend served at `/` when it exists. */
  webDist: string;
  logLevel: 'debug' | 'info' | 'warn' | 'error' | 'silent';
  version: string;
  /** The Hub connection from CORE_HUB_URL + CORE_HUB_INSTANCE_KEY (wins over settings). */
  hub: { url: string; instanceKey: string } | null;
  hubDns: boolean;
  hubSyncIntervalSeconds: number;
}

const ROOT = path.resolve(import.meta.dirname, '..');
export const CORE_ROOT = ROOT;

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
  CORE_OIDC_DEFAULT_ROLE: z.enum(ROLES, { error: 'CORE_OIDC_DEFAULT_ROLE must be admin or readonly' }).default('readonly'),
  CORE_OIDC_ADMIN_GROUPS: z.string().default(''),
  CORE_LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  CORE_HUB_URL: z.url().optional(),
  CORE_HUB_INSTANCE_KEY: z.string().optional(),
  CORE_HUB_DNS: z.enum(['true', 'false'], { error: 'CORE_HUB_DNS must be true or false' }).default('false'),
  CORE_HUB_SYNC_INTERVAL: z.coerce.number().int().min(1, 'CORE_HUB_SYNC_INTERVAL must be at least 1 second').max(86_400).default(60),
});

export function configFromEnv(env: Record<string, string | undefined> = process.env): CoreConfig {
  const cleaned = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, nonEmpty(v)]));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new Error(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
  }
  const e = parsed.data;
  if (e.CORE_OIDC_ISSUER && !e.CORE_OIDC_CLIENT_ID) throw new Error('CORE_OIDC_CLIENT_ID is required with CORE_OIDC_ISSUER');
  if (!e.CORE_HUB_URL !== !e.CORE_HUB_INSTANCE_KEY) throw new Error('CORE_HUB_URL and CORE_HUB_INSTANCE_KEY go together: set both or neither');
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
        ? { issuer: e.CORE_OIDC_ISSUER, clientId: e.CORE_OIDC_CLIENT_ID, audience: e.CORE_OIDC_AUDIENCE ?? null, scopes: e.CORE_OIDC_SCOPES }
        : null,
    oidcDefaultRole: e.CORE_OIDC_DEFAULT_ROLE,
    oidcAdminGroups: e.CORE_OIDC_ADMIN_GROUPS.split(',').map((g) => g.trim()).filter(Boolean),
    webDist: path.join(ROOT, 'web', 'dist'),
    logLevel: e.CORE_LOG_LEVEL,
    version: '0.1.0',
    hub: e.CORE_HUB_URL && e.CORE_HUB_INSTANCE_KEY ? { url: e.CORE_HUB_URL.replace(/\/+$/, ''), instanceKey: e.CORE_HUB_INSTANCE_KEY } : null,
    hubDns: e.CORE_HUB_DNS === 'true',
    hubSyncIntervalSeconds: e.CORE_HUB_SYNC_INTERVAL,
  };
}

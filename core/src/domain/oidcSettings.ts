/**
 * Which OpenID provider Core trusts: the environment (CORE_OIDC_*) wins; otherwise what an admin
 * stored in settings; otherwise none. Read through a short cache so that every request does not
 * hit the database, and so that another process's change applies within seconds.
 */
import { eq } from 'drizzle-orm';
import { z } from 'zod';
import type { CoreConfig } from '../config';
import type { Db } from '../db/client';
import { settings } from '../db/schema';
import { CoreError } from './errors';
import { roleSchema, type Role } from './roles';

const KEY = 'oidc';
const CACHE_MS = 5_000;

export interface EffectiveOidc {
  source: 'environment' | 'settings' | 'none';
  issuer: string | null;
  clientId: string | null;
  audience: string | null;
  scopes: string;
  defaultRole: Role;
  adminGroups: string[];
}

export type ActiveOidc = EffectiveOidc & { issuer: string; clientId: string };

const storedSchema = z.object({
  issuer: z.string(),
  client_id: z.string(),
  audience: z.string().nullable(),
  scopes: z.string(),
  default_role: roleSchema,
});
export type StoredOidc = z.infer<typeof storedSchema>;

export const DEFAULT_SCOPES = 'openid profile email offline_access';

export class OidcSettings {
  private cached: { at: number; value: EffectiveOidc } | undefined;

  constructor(
    private readonly db: Db,
    private readonly config: Pick<CoreConfig, 'oidc' | 'oidcDefaultRole' | 'oidcAdminGroups'>,
  ) {}

  async current(): Promise<EffectiveOidc> {
    if (this.cached && Date.now() - this.cached.at < CACHE_MS) return this.cached.value;
    const value = await this.load();
    this.cached = { at: Date.now(), value };
    return value;
  }

  private async load(): Promise<EffectiveOidc> {
    const { oidc, oidcDefaultRole, oidcAdminGroups } = this.config;
    if (oidc) return { source: 'environment', ...oidc, defaultRole: oidcDefaultRole, adminGroups: oidcAdminGroups };
    const [row] = await this.db.select().from(settings).where(eq(settings.key, KEY));
    const stored = row ? storedSchema.safeParse(JSON.parse(row.value)) : undefined;
    if (stored?.success) {
      const s = stored.data;
      return { source: 'settings', issuer: s.issuer, clientId: s.client_id, audience: s.audience, scopes: s.scopes, defaultRole: s.default_role, adminGroups: oidcAdminGroups };
    }
    return { source: 'none', issuer: null, clientId: null, audience: null, scopes: DEFAULT_SCOPES, defaultRole: oidcDefaultRole, adminGroups: oidcAdminGroups };
  }

  async put(input: { issuer: string; client_id: string; audience?: string | null; scopes?: string; default_role?: Role }) {
    if (this.config.oidc) throw new CoreError('conflict', 'OIDC is configured by the environment (CORE_OIDC_*), which wins over settings; change it there');
    const stored: StoredOidc = {
      issuer: input.issuer, // kept exactly: it must equal what the provider's discovery states
      client_id: input.client_id,
      audience: input.audience ?? null,
      scopes: input.scopes ?? DEFAULT_SCOPES,
      default_role: input.default_role ?? this.config.oidcDefaultRole,
    };
    const value = JSON.stringify(stored);
    await this.db.insert(settings).values({ key: KEY, value }).onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: new Date() } });
    this.cached = undefined;
    return this.current();
  }

  async clear() {
    if (this.config.oidc) throw new CoreError('conflict', 'OIDC is configured by the environment (CORE_OIDC_*), which wins over settings; change it there');
    await this.db.delete(settings).where(eq(settings.key, KEY));
    this.cached = undefined;
    return this.current();
  }
}

export function isActive(o: EffectiveOidc): o is ActiveOidc {
  return o.issuer !== null && o.clientId !== null;
}

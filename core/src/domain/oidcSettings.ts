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
import { changed, recordActivity, type Actor } from './activity';
import { ServiceError } from './errors';
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
  /** From the environment only (a client secret is never stored in settings). */
  introspection: { clientId: string; clientSecret: string } | null;
  acceptUserinfoTokens: boolean;
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
    private readonly config: Pick<
      CoreConfig,
      'oidc' | 'oidcDefaultRole' | 'oidcAdminGroups' | 'oidcIntrospection' | 'oidcAcceptUserinfoTokens'
    >,
  ) {}

  async current(): Promise<EffectiveOidc> {
    if (this.cached && Date.now() - this.cached.at < CACHE_MS) return this.cached.value;
    const value = await this.load();
    this.cached = { at: Date.now(), value };
    return value;
  }

  private async load(): Promise<EffectiveOidc> {
    const { oidc, oidcDefaultRole, oidcAdminGroups } = this.config;
    const tokens = {
      introspection: this.config.oidcIntrospection,
      acceptUserinfoTokens: this.config.oidcAcceptUserinfoTokens,
    };
    if (oidc)
      return { source: 'environment', ...oidc, defaultRole: oidcDefaultRole, adminGroups: oidcAdminGroups, ...tokens };
    const [row] = await this.db.select().from(settings).where(eq(settings.key, KEY));
    const stored = row ? storedSchema.safeParse(JSON.parse(row.value)) : undefined;
    if (stored?.success) {
      const s = stored.data;
      return {
        source: 'settings',
        issuer: s.issuer,
        clientId: s.client_id,
        audience: s.audience,
        scopes: s.scopes,
        defaultRole: s.default_role,
        adminGroups: oidcAdminGroups,
        ...tokens,
      };
    }
    return {
      source: 'none',
      issuer: null,
      clientId: null,
      audience: null,
      scopes: DEFAULT_SCOPES,
      defaultRole: oidcDefaultRole,
      adminGroups: oidcAdminGroups,
      ...tokens,
    };
  }

  private async stored(db: Pick<Db, 'select'>): Promise<StoredOidc | null> {
    const [row] = await db.select().from(settings).where(eq(settings.key, KEY));
    const parsed = row ? storedSchema.safeParse(JSON.parse(row.value)) : undefined;
    return parsed?.success ? parsed.data : null;
  }

  async put(
    input: { issuer: string; client_id: string; audience?: string | null; scopes?: string; default_role?: Role },
    actor: Actor,
  ) {
    if (this.config.oidc)
      throw new ServiceError(
        'conflict',
        'OIDC is configured by the environment (CORE_OIDC_*), which wins over settings; change it there',
      );
    const stored: StoredOidc = {
      issuer: input.issuer, // kept exactly: it must equal what the provider's discovery states
      client_id: input.client_id,
      audience: input.audience ?? null,
      scopes: input.scopes ?? DEFAULT_SCOPES,
      default_role: input.default_role ?? this.config.oidcDefaultRole,
    };
    const value = JSON.stringify(stored);
    await this.db.transaction(async (tx) => {
      const old = await this.stored(tx);
      await tx
        .insert(settings)
        .values({ key: KEY, value })
        .onConflictDoUpdate({ target: settings.key, set: { value, updatedAt: new Date() } });
      const diff = old ? changed(old, stored) : { before: null, after: stored };
      await recordActivity(tx, actor, {
        action: 'settings.oidc_update',
        target: { type: 'settings', id: 'oidc', name: 'OIDC sign-in' },
        ...diff,
      });
    });
    this.cached = undefined;
    return this.current();
  }

  async clear(actor: Actor) {
    if (this.config.oidc)
      throw new ServiceError(
        'conflict',
        'OIDC is configured by the environment (CORE_OIDC_*), which wins over settings; change it there',
      );
    await this.db.transaction(async (tx) => {
      const old = await this.stored(tx);
      await tx.delete(settings).where(eq(settings.key, KEY));
      if (old)
        await recordActivity(tx, actor, {
          action: 'settings.oidc_delete',
          target: { type: 'settings', id: 'oidc', name: 'OIDC sign-in' },
          before: old,
        });
    });
    this.cached = undefined;
    return this.current();
  }
}

export function isActive(o: EffectiveOidc): o is ActiveOidc {
  return o.issuer !== null && o.clientId !== null;
}

export type TokenPolicy = 'jwt_audience' | 'introspection' | 'userinfo' | 'jwt_only';

/** How Core decides that a provider's access token was issued to Core, and what that means (settings page). */
export function tokenPolicy(o: EffectiveOidc): { policy: TokenPolicy; description: string } {
  if (o.audience)
    return {
      policy: 'jwt_audience',
      description: `Only JWT access tokens for the audience ${o.audience}; opaque tokens are refused.`,
    };
  if (o.introspection) {
    return {
      policy: 'introspection',
      description: `Opaque tokens are checked by token introspection as client ${o.introspection.clientId}: accepted only when issued to Core's client.`,
    };
  }
  if (o.acceptUserinfoTokens) {
    return {
      policy: 'userinfo',
      description:
        'CORE_OIDC_ACCEPT_USERINFO_TOKENS=true: an opaque token is accepted whenever the provider’s userinfo answers for it, so any token ' +
        'that provider issued to any application for a person signs them in to Core as that person.',
    };
  }
  return {
    policy: 'jwt_only',
    description:
      'JWT access tokens whose aud or azp is Core’s client; opaque tokens are refused until CORE_OIDC_AUDIENCE, ' +
      'CORE_OIDC_INTROSPECTION_CLIENT_ID/SECRET or CORE_OIDC_ACCEPT_USERINFO_TOKENS=true is set.',
  };
}

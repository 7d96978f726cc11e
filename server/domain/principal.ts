/** Who is calling. Produced by the credential resolver, narrowed by the procedure builders. */
export type PlatformRole = 'user' | 'admin' | 'superadmin';
export type OrgRole = 'admin' | 'member';

export type Principal =
  | { kind: 'anonymous' }
  | { kind: 'instance'; keyId: string; keyName: string; orgId: string }
  | {
      kind: 'user';
      userId: string;
      email: string;
      name: string;
      role: PlatformRole;
      orgId: string | null;
      orgRole: OrgRole | null;
      /**
       * Set when the call came with a script token (a bearer Hub JWT with a `jti`, domain/scriptTokens.ts): its id.
       * What such a caller mints (a personal access token) ends with that script token (domain/pats.ts).
       */
      scriptTokenId?: string;
    };

export type UserPrincipal = Extract<Principal, { kind: 'user' }>;
export type InstancePrincipal = Extract<Principal, { kind: 'instance' }>;

export const ANONYMOUS: Principal = { kind: 'anonymous' };

export function isPlatformAdmin(p: Principal): boolean {
  return p.kind === 'user' && (p.role === 'admin' || p.role === 'superadmin');
}

/** What part of the catalog a principal sees; the visibility predicate is a function of this alone. */
export type CatalogScope = { kind: 'admin' } | { kind: 'org'; orgId: string } | { kind: 'anonymous' };

export function catalogScopeOf(p: Principal): CatalogScope {
  if (isPlatformAdmin(p)) return { kind: 'admin' };
  if (p.kind === 'instance') return { kind: 'org', orgId: p.orgId };
  if (p.kind === 'user' && p.orgId) return { kind: 'org', orgId: p.orgId };
  return { kind: 'anonymous' };
}

/**
 * Where a principal's catalog reads may run: anonymous and instance-key callers read from a caught-up replica
 * when there is one (db/replicas.ts); people (dashboard, account and admin surfaces) read the primary, so
 * they see their own writes at once.
 */
export function readSourceOf(p: Principal): 'primary' | 'replica' {
  return p.kind === 'anonymous' || p.kind === 'instance' ? 'replica' : 'primary';
}

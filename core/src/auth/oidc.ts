/**
 * Verification of access tokens issued by the configured OpenID provider.
 * - A JWT is verified against the provider's JWKS (from discovery) with the issuer exactly as
 *   configured, exp, and the audience rule: with an audience configured, `aud` must contain it;
 *   otherwise `aud` must contain the client id or `azp` must equal it (Keycloak-style tokens).
 * - Anything else is treated as opaque and checked at the userinfo endpoint, cached briefly (and
 *   refusals too, so that garbage cannot make Core call the provider on every request).
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { sha256 } from '../domain/crypto';
import { CoreError, unauthorized } from '../domain/errors';
import type { ActiveOidc } from '../domain/oidcSettings';
import type { Logger } from '../log';

export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  groups: string[];
}

interface Discovery {
  issuer: string;
  jwks: ReturnType<typeof createRemoteJWKSet>;
  userinfoEndpoint: string | null;
}

const DISCOVERY_TTL_MS = 10 * 60_000;
const USERINFO_TTL_MS = 60_000;
const USERINFO_REFUSAL_TTL_MS = 15_000;
const FETCH_TIMEOUT_MS = 5_000;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

function identityFrom(issuer: string, claims: Record<string, unknown>): OidcIdentity {
  const subject = str(claims.sub);
  if (!subject) throw unauthorized('access token has no subject');
  const groups = Array.isArray(claims.groups) ? claims.groups.filter((g): g is string => typeof g === 'string') : [];
  return { issuer, subject, email: str(claims.email), name: str(claims.name) ?? str(claims.preferred_username), groups };
}

export function looksLikeJwt(token: string) {
  if (token.split('.').length !== 3) return false;
  try {
    return typeof decodeProtectedHeader(token).alg === 'string';
  } catch {
    return false;
  }
}

export class OidcVerifier {
  private discoveries = new Map<string, { at: number; value: Promise<Discovery> }>();
  private userinfo = new LRUCache<string, { identity: OidcIdentity | null }>({ max: 10_000, ttl: USERINFO_TTL_MS });

  constructor(private readonly log: Logger) {}

  private discover(issuer: string): Promise<Discovery> {
    const hit = this.discoveries.get(issuer);
    if (hit && Date.now() - hit.at < DISCOVERY_TTL_MS) return hit.value;
    const value = (async () => {
      const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
      let meta: Record<string, unknown>;
      try {
        const res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        meta = (await res.json()) as Record<string, unknown>;
      } catch (err) {
        this.log.warn('OIDC discovery failed', { issuer, error: (err as Error).message });
        throw new CoreError('unavailable', 'the identity provider cannot be reached; try again shortly');
      }
      if (meta.issuer !== issuer) {
        this.log.error('OIDC discovery states another issuer', { configured: issuer, stated: meta.issuer });
        throw new CoreError('unavailable', 'the identity provider states another issuer than the configured one');
      }
      const jwksUri = str(meta.jwks_uri);
      if (!jwksUri) throw new CoreError('unavailable', 'the identity provider publishes no jwks_uri');
      return {
        issuer,
        jwks: createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: FETCH_TIMEOUT_MS }),
        userinfoEndpoint: str(meta.userinfo_endpoint),
      };
    })();
    value.catch(() => this.discoveries.delete(issuer));
    this.discoveries.set(issuer, { at: Date.now(), value });
    return value;
  }

  async verify(token: string, oidc: ActiveOidc): Promise<OidcIdentity> {
    const discovery = await this.discover(oidc.issuer);
    return looksLikeJwt(token) ? this.verifyJwt(token, oidc, discovery) : this.verifyOpaque(token, oidc, discovery);
  }

  private async verifyJwt(token: string, oidc: ActiveOidc, discovery: Discovery): Promise<OidcIdentity> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, discovery.jwks, { issuer: oidc.issuer, algorithms: ALGORITHMS }));
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_JWKS_TIMEOUT') throw new CoreError('unavailable', 'the identity provider cannot be reached; try again shortly');
      throw unauthorized(code === 'ERR_JWT_EXPIRED' ? 'access token expired' : 'invalid access token');
    }
    const aud = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const accepted = oidc.audience ? aud.includes(oidc.audience) : aud.includes(oidc.clientId) || payload.azp === oidc.clientId;
    if (!accepted) throw unauthorized('access token is not meant for this service (audience)');
    // An ID token names the client as its audience too, but it is not an access token.
    if (payload.typ === 'ID' || payload.at_hash !== undefined) throw unauthorized('an ID token is not an access token');
    return identityFrom(oidc.issuer, payload);
  }

  private async verifyOpaque(token: string, oidc: ActiveOidc, discovery: Discovery): Promise<OidcIdentity> {
    if (!discovery.userinfoEndpoint) throw unauthorized('invalid access token');
    const key = `${oidc.issuer}\0${sha256(token)}`;
    const hit = this.userinfo.get(key);
    if (hit) {
      if (!hit.identity) throw unauthorized('invalid access token');
      return hit.identity;
    }
    let res: Response;
    try {
      res = await fetch(discovery.userinfoEndpoint, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch {
      throw new CoreError('unavailable', 'the identity provider cannot be reached; try again shortly');
    }
    if (res.status >= 500) throw new CoreError('unavailable', 'the identity provider failed; try again shortly');
    if (!res.ok) {
      this.userinfo.set(key, { identity: null }, { ttl: USERINFO_REFUSAL_TTL_MS });
      throw unauthorized('invalid access token');
    }
    const identity = identityFrom(oidc.issuer, (await res.json()) as Record<string, unknown>);
    this.userinfo.set(key, { identity });
    return identity;
  }
}

/**
 * Verification of access tokens issued by the configured OpenID provider.
 * - A JWT is verified against the provider's JWKS (from discovery) with the issuer exactly as
 *   configured, exp, and the audience rule: with an audience configured, `aud` must contain it;
 *   otherwise `aud` must contain the client id or `azp` must equal it (Keycloak-style tokens).
 * - Anything else is opaque. A userinfo answer alone does not prove a token was issued to Core (any
 *   application the person granted `openid` at the provider holds such a token), so an opaque token is
 *   accepted only: without a configured audience (with one, only JWTs for it), through token
 *   introspection (RFC 7662) when discovery advertises it and Core has its confidential client
 *   (CORE_OIDC_INTROSPECTION_CLIENT_ID/SECRET): active, and issued to Core's client; or at the userinfo
 *   endpoint when the operator opted in (CORE_OIDC_ACCEPT_USERINFO_TOKENS=true). Otherwise the 401
 *   names the missing setting. Answers are cached briefly (refusals too, so that garbage cannot make
 *   Core call the provider on every request).
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTHeaderParameters, type JWTPayload } from 'jose';
import { LRUCache } from 'lru-cache';
import { insecureTrustAnchor } from '../config';
import { sha256 } from '../domain/crypto';
import { ServiceError, unauthenticated } from '../domain/errors';
import type { ActiveOidc } from '../domain/oidcSettings';
import type { Logger } from '../log';

export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  name: string | null;
  /** null: the token and userinfo carry no groups claim at all (then group membership changes nothing). */
  groups: string[] | null;
}

interface Discovery {
  issuer: string;
  jwks: ReturnType<typeof createRemoteJWKSet>;
  userinfoEndpoint: string | null;
  introspectionEndpoint: string | null;
}

const DISCOVERY_TTL_MS = 10 * 60_000;
const USERINFO_TTL_MS = 60_000;
const USERINFO_REFUSAL_TTL_MS = 15_000;
const FETCH_TIMEOUT_MS = 5_000;
const ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

function identityFrom(issuer: string, claims: Record<string, unknown>): OidcIdentity {
  const subject = str(claims.sub);
  if (!subject) throw unauthenticated('access token has no subject');
  const groups = Array.isArray(claims.groups) ? claims.groups.filter((g): g is string => typeof g === 'string') : null;
  return {
    issuer,
    subject,
    email: str(claims.email),
    name: str(claims.name) ?? str(claims.preferred_username),
    groups,
  };
}

/** Header types of an access token: RFC 9068's at+jwt (media type or short form) and the generic JWT. */
const ACCESS_TOKEN_TYPES = new Set(['at+jwt', 'application/at+jwt', 'jwt']);
/** Claims of access tokens that ID tokens do not carry (RFC 9068, RFC 8693; `scp`/`cid` of Azure and Okta). */
const ACCESS_TOKEN_CLAIMS = ['scope', 'scp', 'client_id', 'cid'] as const;

/**
 * Why a verified JWT is an ID token rather than an access token, or null. An ID token is signed by the same
 * provider with the same keys and names Core's client as its audience, so without these checks the token a
 * browser got for sign-in (or any client's ID token for Core's client id) would pass as an access token:
 * - a `nonce` (only ID tokens carry the browser's nonce), an `at_hash`, or a payload `typ` of ID (Keycloak);
 * - a header `typ` other than at+jwt or JWT (an ID token's is absent, JWT or an ID type);
 * - without a configured audience (or one that is the client id itself): `auth_time` with `aud` naming the
 *   client id (an access token for Core is issued for an API audience; one whose audience is the client is
 *   shaped like an ID token);
 * - likewise, `aud` naming the client id and no sign of an access token: no header typ
 *   at+jwt and none of the claims access tokens carry (`scope`, `scp`, `client_id`, `cid`). A plain code-flow ID
 *   token (no nonce asked, no fresh login) has none of the signs above and would pass otherwise.
 */
export function idTokenSignOf(
  typ: unknown,
  payload: JWTPayload,
  oidc: Pick<ActiveOidc, 'audience' | 'clientId'>,
): string | null {
  if (payload.nonce !== undefined) return 'a nonce';
  if (payload.at_hash !== undefined) return 'an at_hash';
  if (typeof payload.typ === 'string' && payload.typ.toLowerCase() === 'id') return 'typ ID';
  if (typ !== undefined && !(typeof typ === 'string' && ACCESS_TOKEN_TYPES.has(typ.toLowerCase())))
    return `the header typ ${JSON.stringify(typ)}, not at+jwt`;
  const aud = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
  // An audience configured as the client id itself is no API audience: ID tokens name it too.
  const clientAudience = !oidc.audience || oidc.audience === oidc.clientId;
  if (clientAudience && aud.includes(oidc.clientId)) {
    if (payload.auth_time !== undefined) return 'auth_time with the client id as audience';
    const atJwt = typeof typ === 'string' && /^(application\/)?at\+jwt$/i.test(typ);
    if (!atJwt && !ACCESS_TOKEN_CLAIMS.some((claim) => payload[claim] !== undefined))
      return 'the client id as audience and no access-token claim (scope, client_id) or header typ at+jwt';
  }
  return null;
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
        this.log.warn({ issuer, error: (err as Error).message }, 'OIDC discovery failed');
        throw new ServiceError('unavailable', 'the identity provider cannot be reached; try again shortly');
      }
      if (meta.issuer !== issuer) {
        this.log.error({ configured: issuer, stated: meta.issuer }, 'OIDC discovery states another issuer');
        throw new ServiceError('unavailable', 'the identity provider states another issuer than the configured one');
      }
      const jwksUri = str(meta.jwks_uri);
      if (!jwksUri) throw new ServiceError('unavailable', 'the identity provider publishes no jwks_uri');
      return {
        issuer,
        jwks: createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: FETCH_TIMEOUT_MS }),
        userinfoEndpoint: str(meta.userinfo_endpoint),
        introspectionEndpoint: str(meta.introspection_endpoint),
      };
    })();
    value.catch(() => this.discoveries.delete(issuer));
    this.discoveries.set(issuer, { at: Date.now(), value });
    return value;
  }

  async verify(token: string, oidc: ActiveOidc): Promise<OidcIdentity> {
    const insecure = insecureTrustAnchor(oidc.issuer);
    if (insecure)
      throw new ServiceError(
        'unavailable',
        `the configured OIDC issuer ${insecure}; an admin must change it in Core's settings`,
      );
    const discovery = await this.discover(oidc.issuer);
    return looksLikeJwt(token) ? this.verifyJwt(token, oidc, discovery) : this.verifyOpaque(token, oidc, discovery);
  }

  private async verifyJwt(token: string, oidc: ActiveOidc, discovery: Discovery): Promise<OidcIdentity> {
    let payload: JWTPayload;
    let protectedHeader: JWTHeaderParameters;
    try {
      ({ payload, protectedHeader } = await jwtVerify(token, discovery.jwks, {
        issuer: oidc.issuer,
        algorithms: ALGORITHMS,
      }));
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_JWKS_TIMEOUT')
        throw new ServiceError('unavailable', 'the identity provider cannot be reached; try again shortly');
      throw unauthenticated(code === 'ERR_JWT_EXPIRED' ? 'access token expired' : 'invalid access token');
    }
    const aud = typeof payload.aud === 'string' ? [payload.aud] : (payload.aud ?? []);
    const accepted = oidc.audience
      ? aud.includes(oidc.audience)
      : aud.includes(oidc.clientId) || payload.azp === oidc.clientId;
    if (!accepted) throw unauthenticated('access token is not meant for this service (audience)');
    const idTokenSign = idTokenSignOf(protectedHeader.typ, payload, oidc);
    if (idTokenSign) throw unauthenticated(`an ID token is not an access token (it carries ${idTokenSign})`);
    return identityFrom(oidc.issuer, payload);
  }

  /** Which check an opaque token gets under these settings, or the refusal naming what is missing. */
  private opaqueCheck(oidc: ActiveOidc, discovery: Discovery): 'introspection' | 'userinfo' {
    if (oidc.audience) {
      throw unauthenticated(
        `opaque access tokens are not accepted: with CORE_OIDC_AUDIENCE (${oidc.audience}) set, Core accepts only JWT access tokens for that audience; ` +
          'the client must request it (Auth0: audience=…, oidc-provider: resource=…)',
      );
    }
    if (discovery.introspectionEndpoint && oidc.introspection) return 'introspection';
    if (oidc.acceptUserinfoTokens) return 'userinfo';
    throw unauthenticated(opaqueRefusal(discovery.introspectionEndpoint !== null));
  }

  private async verifyOpaque(token: string, oidc: ActiveOidc, discovery: Discovery): Promise<OidcIdentity> {
    const check = this.opaqueCheck(oidc, discovery);
    const key = `${check}\0${oidc.issuer}\0${oidc.clientId}\0${sha256(token)}`;
    const hit = this.userinfo.get(key);
    if (hit) {
      if (!hit.identity) throw unauthenticated('invalid access token');
      return hit.identity;
    }
    try {
      if (check === 'introspection') await this.introspect(token, oidc, discovery);
      const identity = await this.fetchUserinfo(token, oidc, discovery);
      this.userinfo.set(key, { identity });
      return identity;
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'unauthenticated')
        this.userinfo.set(key, { identity: null }, { ttl: USERINFO_REFUSAL_TTL_MS });
      throw err;
    }
  }

  /** RFC 7662: active, an access token, issued to Core's client (client_id, or Core's client in aud). */
  private async introspect(token: string, oidc: ActiveOidc, discovery: Discovery): Promise<void> {
    const { clientId, clientSecret } = oidc.introspection!;
    let res: Response;
    try {
      res = await fetch(discovery.introspectionEndpoint!, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch {
      throw new ServiceError('unavailable', 'the identity provider cannot be reached; try again shortly');
    }
    if (!res.ok) {
      this.log.error({ status: res.status, client_id: clientId }, 'OIDC token introspection refused Core’s client');
      throw new ServiceError(
        'unavailable',
        'the identity provider refused Core’s token introspection (check CORE_OIDC_INTROSPECTION_CLIENT_ID/SECRET)',
      );
    }
    const answer = (await res.json()) as Record<string, unknown>;
    if (answer.active !== true) throw unauthenticated('invalid access token');
    if (answer.token_type !== undefined && !/access_token|bearer/i.test(String(answer.token_type)))
      throw unauthenticated('this is not an access token');
    const aud = typeof answer.aud === 'string' ? [answer.aud] : Array.isArray(answer.aud) ? answer.aud : [];
    if (answer.client_id !== oidc.clientId && !aud.includes(oidc.clientId)) {
      throw unauthenticated(
        'access token is not meant for this service: the provider issued it to another application',
      );
    }
  }

  private async fetchUserinfo(token: string, oidc: ActiveOidc, discovery: Discovery): Promise<OidcIdentity> {
    if (!discovery.userinfoEndpoint)
      throw unauthenticated('invalid access token (the provider publishes no userinfo endpoint)');
    let res: Response;
    try {
      res = await fetch(discovery.userinfoEndpoint, {
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
      });
    } catch {
      throw new ServiceError('unavailable', 'the identity provider cannot be reached; try again shortly');
    }
    if (res.status >= 500) throw new ServiceError('unavailable', 'the identity provider failed; try again shortly');
    if (!res.ok) throw unauthenticated('invalid access token');
    return identityFrom(oidc.issuer, (await res.json()) as Record<string, unknown>);
  }
}

/** The 401 for an opaque token Core has no way to check: which setting the operator is missing. */
export function opaqueRefusal(introspectionAdvertised: boolean): string {
  return (
    'opaque access tokens are not accepted: a userinfo answer does not show that a token was issued to Core. ' +
    (introspectionAdvertised
      ? 'The provider offers token introspection: set CORE_OIDC_INTROSPECTION_CLIENT_ID and ' +
        'CORE_OIDC_INTROSPECTION_CLIENT_SECRET (a confidential client of Core at the provider)'
      : 'Set CORE_OIDC_AUDIENCE so that the provider issues JWT access tokens for Core') +
    ', or accept userinfo-checked tokens with CORE_OIDC_ACCEPT_USERINFO_TOKENS=true ' +
    '(any token the provider issued to any application for a person then signs them in)'
  );
}

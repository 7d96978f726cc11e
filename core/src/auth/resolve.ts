/**
 * The one credential resolver: `Authorization: Bearer <token>` → the caller, or a refusal.
 * svm_ → machine token; a JWT issued by this Core → local user or temporary admin; anything else →
 * the configured OpenID provider (JWT via JWKS, opaque via userinfo), provisioning the person on
 * first sight. A credential that is present but not valid is never treated as anonymous.
 */
import { parseBearer, secretKindOf } from '@shared/tokens';
import { decodeJwt } from 'jose';
import type { CoreConfig } from '../config';
import type { Db } from '../db/client';
import type { Sealer, SigningKey } from '../domain/crypto';
import { unauthenticated } from '../domain/errors';
import { verifyMachineToken } from '../domain/machineTokens';
import { isActive, type OidcSettings } from '../domain/oidcSettings';
import type { Principal } from '../domain/principal';
import { isCoreSessionToken, verifySessionToken } from '../domain/sessions';
import { provisionOidcUser } from '../domain/users';
import { looksLikeJwt, type OidcVerifier } from './oidc';
import { verifyHubAssertion } from '../hub/assertion';
import type { HubConnection } from '../hub/connection';

export interface ResolverDeps {
  config: Pick<CoreConfig, 'url' | 'temporaryAdmin'>;
  db: Db;
  signingKey: SigningKey;
  sealer: Sealer;
  oidcSettings: OidcSettings;
  oidcVerifier: OidcVerifier;
  hub: HubConnection;
}

/** null: no credential at all. `hubAssertion`: also accept the Hub's MCP assertion (only /mcp does). */
export async function resolveCredential(
  deps: ResolverDeps,
  authorization: string | undefined,
  opts: { hubAssertion?: boolean } = {},
): Promise<Principal | null> {
  if (authorization === undefined || authorization === '') return null;
  const token = parseBearer(authorization);
  if (!token) throw unauthenticated('use Authorization: Bearer <token>');

  if (secretKindOf(token) === 'svm_') return verifyMachineToken(deps.db, token);

  if (looksLikeJwt(token) && isCoreSessionToken(deps.config, safeIssuer(token))) return verifySessionToken(deps, token);

  if (opts.hubAssertion && looksLikeJwt(token)) {
    const person = await verifyHubAssertion(deps.db, deps.hub, safeIssuer(token), token);
    if (person) return person;
  }

  const oidc = await deps.oidcSettings.current();
  if (!isActive(oidc)) throw unauthenticated('unknown credential');
  const identity = await deps.oidcVerifier.verify(token, oidc);
  const user = await provisionOidcUser(deps.db, identity, oidc);
  return { kind: 'oidc', role: user.role, userId: user.id, email: user.email, name: user.name };
}

function safeIssuer(token: string): unknown {
  try {
    return decodeJwt(token).iss;
  } catch {
    return undefined;
  }
}

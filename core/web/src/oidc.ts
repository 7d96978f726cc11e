/**
 * The OpenID Connect authorization-code flow with PKCE (S256), state and nonce, run in the browser as a public
 * client (no secret), and the refresh grant; oauth4webapi does the protocol work.
 */
import * as oauth from 'oauth4webapi';
import type { AuthConfig } from './types';

/** The provider as /auth/config names it (setup_note: the settings missing for its opaque tokens, when any). */
export type OidcClientConfig = NonNullable<AuthConfig['oidc']>;

export interface ProviderTokens {
  access_token: string;
  refresh_token: string | null;
  expires_in: number | null;
}

/** What the callback needs, kept in sessionStorage across the round trip to the provider. */
interface PendingSignIn {
  issuer: string;
  code_verifier: string;
  state: string;
  nonce: string;
  return_to: string;
}

const PENDING_KEY = 'core.oidc.pending';
export const redirectUri = () => `${location.origin}/auth/callback`;
const clientAuth = oauth.None();

/** Plain http only for a provider on this machine (development, tests); anything else must be https. */
function httpOptions(issuer: URL) {
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
  return { [oauth.allowInsecureRequests]: issuer.protocol === 'http:' && loopback };
}

const discovered = new Map<string, Promise<oauth.AuthorizationServer>>();
function authorizationServer(issuer: string): Promise<oauth.AuthorizationServer> {
  let as = discovered.get(issuer);
  if (!as) {
    const url = new URL(issuer);
    as = oauth
      .discoveryRequest(url, { algorithm: 'oidc', ...httpOptions(url) })
      .then((res) => oauth.processDiscoveryResponse(url, res));
    as.catch(() => discovered.delete(issuer));
    discovered.set(issuer, as);
  }
  return as;
}

/** RFC 8707: name Core's API so that providers like oidc-provider issue a JWT access token for it. */
function resourceParameter(cfg: OidcClientConfig): Record<string, string> {
  return cfg.audience ? { resource: cfg.audience } : {};
}

/** Sends the browser to the provider's authorization endpoint. */
export async function beginSignIn(cfg: OidcClientConfig, returnTo: string): Promise<void> {
  const as = await authorizationServer(cfg.issuer);
  if (!as.authorization_endpoint) throw new Error('The provider publishes no authorization endpoint.');
  const pending: PendingSignIn = {
    issuer: cfg.issuer,
    code_verifier: oauth.generateRandomCodeVerifier(),
    state: oauth.generateRandomState(),
    nonce: oauth.generateRandomNonce(),
    return_to: returnTo,
  };
  const url = new URL(as.authorization_endpoint);
  const params = {
    client_id: cfg.client_id,
    redirect_uri: redirectUri(),
    response_type: 'code',
    scope: cfg.scopes,
    code_challenge: await oauth.calculatePKCECodeChallenge(pending.code_verifier),
    code_challenge_method: 'S256',
    state: pending.state,
    nonce: pending.nonce,
    ...resourceParameter(cfg),
    // OpenID Connect Core 11: a refresh token (offline_access) is granted only after consent was asked for.
    ...(cfg.scopes.split(/\s+/).includes('offline_access') ? { prompt: 'consent' } : {}),
  };
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  location.assign(url.href);
}

/** Handles the provider's answer at /auth/callback: checks state, exchanges the code (PKCE), checks the nonce. */
export async function finishSignIn(
  cfg: OidcClientConfig,
  callbackUrl: URL,
): Promise<ProviderTokens & { return_to: string }> {
  const raw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  if (!raw) throw new Error('This sign-in was not started here, or it was already completed. Start again.');
  const pending = JSON.parse(raw) as PendingSignIn;
  if (pending.issuer !== cfg.issuer) throw new Error('The sign-in provider changed during sign-in. Start again.');

  const as = await authorizationServer(cfg.issuer);
  const client: oauth.Client = { client_id: cfg.client_id };
  const params = oauth.validateAuthResponse(as, client, callbackUrl, pending.state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth,
    params,
    redirectUri(),
    pending.code_verifier,
    {
      additionalParameters: resourceParameter(cfg),
      ...httpOptions(new URL(cfg.issuer)),
    },
  );
  const result = await oauth.processAuthorizationCodeResponse(as, client, response, {
    expectedNonce: pending.nonce,
    requireIdToken: true,
  });
  return { ...tokensOf(result), return_to: pending.return_to };
}

export async function refreshTokens(cfg: OidcClientConfig, refreshToken: string): Promise<ProviderTokens> {
  const as = await authorizationServer(cfg.issuer);
  const client: oauth.Client = { client_id: cfg.client_id };
  const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshToken, {
    additionalParameters: resourceParameter(cfg),
    ...httpOptions(new URL(cfg.issuer)),
  });
  const result = await oauth.processRefreshTokenResponse(as, client, response);
  // Providers may keep the refresh token unchanged and then omit it from the answer.
  return { ...tokensOf(result), refresh_token: result.refresh_token ?? refreshToken };
}

function tokensOf(result: oauth.TokenEndpointResponse): ProviderTokens {
  return {
    access_token: result.access_token,
    refresh_token: result.refresh_token ?? null,
    expires_in: result.expires_in ?? null,
  };
}

/** A readable sentence for what went wrong in the protocol (the provider's own error description when it gave one). */
export function describeOidcError(err: unknown): string {
  if (err instanceof oauth.AuthorizationResponseError || err instanceof oauth.ResponseBodyError) {
    return `The provider refused the sign-in: ${err.error_description ?? err.error}.`;
  }
  return err instanceof Error ? err.message : 'The sign-in failed.';
}

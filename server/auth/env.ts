/**
 * Sign-in settings from the environment (documented in the README's configuration table).
 *   OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET  the OpenID Connect provider (discovery from the issuer)
 *   OIDC_PROVIDER_NAME                              shown on the sign-in button (default "OpenID Connect")
 *   OIDC_SCOPE                                      default "openid email profile"
 *   HUB_SUPERADMIN_EMAILS                           comma-separated; these users become superadmin when they sign in
 *   HUB_DEV_OIDC_PROVIDER=1                         set by `npm start` when it runs the development provider
 *   AUTH_SECRET                                     optional; derived from the Hub master secret when unset
 */
import { readEnv } from '../config';

function env(name: string): string | undefined {
  const value = readEnv(name)?.trim();
  return value ? value : undefined;
}

export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  name: string;
  scope: string;
}

export const authEnv = {
  /** The configured provider, or null when none is (fully) configured. */
  get oidc(): OidcSettings | null {
    const issuer = env('OIDC_ISSUER');
    const clientId = env('OIDC_CLIENT_ID');
    const clientSecret = env('OIDC_CLIENT_SECRET');
    if (!issuer || !clientId || !clientSecret) return null;
    return {
      issuer,
      clientId,
      clientSecret,
      name: env('OIDC_PROVIDER_NAME') ?? (this.devProvider ? 'Development provider' : 'OpenID Connect'),
      scope: env('OIDC_SCOPE') ?? 'openid email profile',
    };
  },
  /** Which OIDC_* variables are set, to explain a partial configuration. */
  get missingOidcVariables(): string[] {
    return ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'].filter((n) => !env(n));
  },
  /** The built-in development provider is in use: anyone signs in, and the first user becomes superadmin. */
  get devProvider(): boolean {
    return env('HUB_DEV_OIDC_PROVIDER') === '1';
  },
  get superadminEmails(): string[] {
    return (env('HUB_SUPERADMIN_EMAILS') ?? '')
      .split(',')
      .map((e) => e.trim().toLowerCase())
      .filter(Boolean);
  },
  get authSecret(): string | undefined {
    return env('AUTH_SECRET') ?? env('NEXTAUTH_SECRET');
  },
};

import type { Metadata } from 'next';
import { redirect } from 'next/navigation';
import { config } from '@/server/config';
import { sameOriginPath } from '@/server/auth/redirects';
import { pageSession } from '@/server/auth/session';
import { Card, ErrorState, Notice } from '../_components/ui';
import { signInAction } from './actions';
import { devProviderRoleRule } from './dev-notice';

export const metadata: Metadata = { title: 'Sign in' };
export const dynamic = 'force-dynamic';

const ERRORS: Record<string, string> = {
  no_email:
    'Your identity provider did not share an email address. The Hub needs one: allow the "email" scope for the Hub at your provider.',
  email_unverified:
    'Your identity provider has not verified your email address, so it cannot be linked to your existing Hub account. Verify it there and try again.',
  identity_conflict:
    'A Hub account with this email is already linked to a different sign-in identity. Ask a Hub administrator for help.',
  expired: 'Your session has ended. Sign in again.',
  AccessDenied: 'Sign-in was refused.',
  Configuration:
    'Sign-in is misconfigured on this Hub (the identity provider could not be reached or rejected the Hub). Check the server log.',
  OAuthCallbackError: 'The identity provider reported an error. Try again.',
  InvalidCheck: 'The sign-in attempt expired or was started in another browser. Try again.',
};

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const one = (k: string) => (Array.isArray(params[k]) ? params[k]![0] : (params[k] as string | undefined));
  const callbackUrl = sameOriginPath(one('callbackUrl'));
  const error = one('error');
  const session = await pageSession();
  if (session.user) redirect(callbackUrl);

  const oidc = config.auth.oidc;
  const roleRule = config.auth.devProvider ? await devProviderRoleRule() : null;
  const missing = config.auth.missingOidcVariables;
  return (
    <div className="mx-auto max-w-md space-y-4 pt-4 sm:pt-10">
      <h1 className="text-2xl font-semibold tracking-tight">Sign in to the Hub</h1>
      {error ? (
        <ErrorState title="Could not sign you in" message={ERRORS[error] ?? 'Sign-in failed. Try again.'} />
      ) : null}
      <Card>
        {oidc ? (
          <form action={signInAction} className="space-y-4">
            <input type="hidden" name="callbackUrl" value={callbackUrl} />
            <p className="text-sm text-zinc-700">
              You sign in with your organization&apos;s identity provider (OpenID Connect).
            </p>
            <button
              type="submit"
              className="w-full rounded-lg bg-blue-700 px-4 py-2.5 font-semibold text-white hover:bg-blue-800"
            >
              Sign in with {oidc.name}
            </button>
          </form>
        ) : (
          <div className="space-y-2 text-sm text-zinc-800">
            <p className="font-semibold">Sign-in is not configured.</p>
            <p>
              Set <code>OIDC_ISSUER</code>, <code>OIDC_CLIENT_ID</code> and <code>OIDC_CLIENT_SECRET</code> to your
              OpenID Connect provider and restart the Hub{missing.length < 3 ? ` (missing: ${missing.join(', ')})` : ''}
              . Started with <code>npm start</code> and none of them set, the Hub runs a development provider instead.
            </p>
          </div>
        )}
      </Card>
      {config.auth.devProvider ? (
        <Notice>
          <p className="font-semibold">Development identity provider</p>
          <p className="mt-1">
            This Hub uses the development OpenID provider that ships with it, because no provider is configured: anyone
            can sign in with any email, without a password. {roleRule} For real use, set <code>OIDC_ISSUER</code>,{' '}
            <code>OIDC_CLIENT_ID</code> and <code>OIDC_CLIENT_SECRET</code> (Keycloak, Auth0, Google, … — see the
            README) and restart.
          </p>
        </Notice>
      ) : null}
    </div>
  );
}

import { useEffect, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { describeOidcError } from '../oidc';
import { completeOidcSignIn } from '../session';
import { PageHeading } from '../components';

// The code can be exchanged once: one attempt per callback URL, even if React runs the effect twice.
let attempt: { url: string; result: Promise<string> } | null = null;

/** /auth/callback: the provider sends the browser back here with a code (or an error). */
export function Callback() {
  const [, navigate] = useLocation();
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const url = location.href;
    if (attempt?.url !== url) attempt = { url, result: completeOidcSignIn(new URL(url)) };
    let live = true;
    attempt.result.then(
      (to) => live && navigate(to, { replace: true }),
      (err: unknown) => live && setError(describeOidcError(err)),
    );
    return () => {
      live = false;
    };
  }, [navigate]);

  return (
    <main id="main" className="login">
      <PageHeading>Signing in</PageHeading>
      {error ? (
        <>
          <p role="alert" className="notice error">
            {error}
          </p>
          <p>
            <Link href="/login">Back to sign-in</Link>
          </p>
        </>
      ) : (
        <p role="status">Completing sign-in…</p>
      )}
    </main>
  );
}

import { useMutation, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { ErrorNotice, Field, PageHeading } from '../components';
import { beginSignIn, describeOidcError } from '../oidc';
import { getAuthConfig, returnTo, signInLocal, useSession } from '../session';

export function Login() {
  const { notice } = useSession();
  const config = useQuery({ queryKey: ['auth-config'], queryFn: getAuthConfig });
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const local = useMutation({ mutationFn: () => signInLocal(username, password) });
  const sso = useMutation({ mutationFn: () => beginSignIn(config.data!.oidc!, returnTo()) });

  function submit(e: FormEvent) {
    e.preventDefault();
    local.mutate();
  }

  const oidc = config.data?.oidc;
  return (
    <main id="main" className="login">
      <PageHeading>Sign in to Core</PageHeading>
      {notice && (
        <p role="status" className="notice">
          {notice}
        </p>
      )}
      <ErrorNotice error={config.error} />
      {oidc && (
        <section aria-label="Single sign-on" className="sso">
          <button type="button" className="primary wide" onClick={() => sso.mutate()} disabled={sso.isPending}>
            Sign in with {oidc.provider_name}
          </button>
          {sso.error && (
            <p role="alert" className="notice error">
              {describeOidcError(sso.error)}
            </p>
          )}
          {oidc.setup_note && <p className="muted">{oidc.setup_note}</p>}
          <p className="divider">or with a Core account</p>
        </section>
      )}
      <form onSubmit={submit} className="stack">
        <Field label="Email or username">
          {(id) => (
            <input
              id={id}
              name="username"
              autoComplete="username"
              required
              value={username}
              onChange={(e) => setUsername(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password">
          {(id) => (
            <input
              id={id}
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <ErrorNotice error={local.error} />
        <button type="submit" className={oidc ? 'wide' : 'primary wide'} disabled={local.isPending}>
          {local.isPending ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

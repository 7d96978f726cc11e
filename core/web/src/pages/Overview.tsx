import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { core } from '../api';
import { ErrorNotice, PageHeading, useMe } from '../components';

const KIND: Record<string, string> = {
  local: 'Core account',
  oidc: 'single sign-on',
  temporary_admin: 'temporary admin',
  machine_token: 'machine token',
};

export function Overview() {
  const me = useMe();
  const secrets = useQuery({ queryKey: ['secrets'], queryFn: core.secrets });
  const users = useQuery({ queryKey: ['users', 1, 1], queryFn: () => core.users({ page: 1, limit: 1 }) });
  const tokens = useQuery({ queryKey: ['tokens', 1, 1], queryFn: () => core.tokens({ page: 1, limit: 1 }) });
  const settings = useQuery({ queryKey: ['settings'], queryFn: core.settings });

  const cards = [
    { href: '/secrets', title: 'Secrets', count: secrets.data?.secrets.length },
    { href: '/users', title: 'Users', count: users.data?.pagination.total },
    { href: '/tokens', title: 'Machine tokens', count: tokens.data?.pagination.total },
  ];
  return (
    <>
      <PageHeading>Overview</PageHeading>
      <p>
        Signed in as <strong>{me.user?.email ?? me.token_id}</strong> through {KIND[me.kind] ?? me.kind}, role <strong>{me.role}</strong>
        {me.role === 'readonly' && ': you can read everything except secret values, and change nothing'}.
      </p>
      <ErrorNotice error={secrets.error ?? users.error ?? tokens.error} />
      <ul className="cards">
        {cards.map((c) => (
          <li key={c.href}>
            <Link href={c.href}>
              <span className="count">{c.count ?? '…'}</span> {c.title}
            </Link>
          </li>
        ))}
      </ul>
      {settings.data && (
        <p className="muted">
          Core {settings.data.version} · single sign-on {settings.data.oidc.source === 'none' ? 'not configured' : `configured (${settings.data.oidc.source})`}
          {settings.data.temporary_admin.enabled && ' · temporary admin enabled'}
        </p>
      )}
    </>
  );
}

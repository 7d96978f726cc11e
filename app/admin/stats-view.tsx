'use client';
import Link from 'next/link';
import { errorMessage } from '../_lib/errors';
import { trpc } from '../_lib/trpc';
import { ErrorState, Skeleton } from '../_components/ui';

export function StatsView() {
  const stats = trpc.admin.stats.useQuery({});
  const items = [
    { key: 'users', label: 'Users', href: '/admin/users' },
    { key: 'organizations', label: 'Organizations', href: '/admin/organizations' },
    { key: 'apiKeys', label: 'Active instance keys', href: '/admin/api-keys' },
    { key: 'templates', label: 'Templates', href: '/admin/templates' },
    { key: 'categories', label: 'Categories', href: '/admin/categories' },
  ] as const;
  if (stats.isError) return <ErrorState title="Statistics could not be loaded" message={errorMessage(stats.error)} />;
  return (
    <ul className="grid grid-cols-2 gap-3 sm:grid-cols-3 lg:grid-cols-5" aria-busy={stats.isPending}>
      {items.map((i) => (
        <li key={i.key}>
          <Link
            href={i.href}
            className="block rounded-xl border border-zinc-200 bg-white p-4 shadow-sm hover:border-blue-400"
          >
            <span className="block text-sm text-zinc-600">{i.label}</span>
            {stats.data ? (
              <span className="mt-1 block text-3xl font-semibold text-zinc-900" data-testid={`stat-${i.key}`}>
                {stats.data[i.key]}
              </span>
            ) : (
              <Skeleton className="mt-2 h-8 w-16" />
            )}
          </Link>
        </li>
      ))}
    </ul>
  );
}

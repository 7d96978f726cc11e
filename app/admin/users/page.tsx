import type { Metadata } from 'next';
import { PageHeader } from '../../_components/ui';
import { SUPERADMINS_INPUT, usersInput, type RawParams } from '../list-params';
import { serverTrpc } from '@/app/_lib/server-trpc';
import { UsersTable } from './users-table';

export const metadata: Metadata = { title: 'Users · Admin' };

export default async function AdminUsersPage({ searchParams }: { searchParams: Promise<RawParams> }) {
  const { trpc, HydrateClient, session } = await serverTrpc();
  // Exactly the client's queries (same inputs from the same URL reader): the first rows come with the HTML.
  await Promise.all([
    trpc.admin.listUsers.prefetch(usersInput(await searchParams)),
    trpc.admin.listUsers.prefetch(SUPERADMINS_INPUT),
  ]);
  return (
    <div>
      <PageHeader
        title="Users"
        description="Platform roles: user, admin (curates the catalog and manages organizations), superadmin (also grants and revokes superadmin)."
      />
      <HydrateClient>
        <UsersTable selfId={session.user?.userId ?? ''} viewerRole={session.user?.role ?? 'user'} />
      </HydrateClient>
    </div>
  );
}

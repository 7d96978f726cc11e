import type { Metadata } from 'next';
import { pageSession } from '@/server/auth/session';
import { PageHeader } from '../../_components/ui';
import { UsersTable } from './users-table';

export const metadata: Metadata = { title: 'Users · Admin' };

export default async function AdminUsersPage() {
  const { user } = await pageSession();
  return (
    <div>
      <PageHeader title="Users" description="Platform roles: user, admin (curates the catalog and manages organizations), superadmin." />
      <UsersTable selfId={user?.userId ?? ''} />
    </div>
  );
}

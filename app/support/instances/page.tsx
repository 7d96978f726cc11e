import type { Metadata } from 'next';
import { requireUser } from '@/server/auth/session';
import { Notice, PageHeader } from '../../_components/ui';
import { InstancesView } from './instances-view';

export const metadata: Metadata = { title: 'Instances' };
export const dynamic = 'force-dynamic';

export default async function InstancesPage() {
  const { user, isAdmin } = await requireUser('/support/instances');
  return (
    <div>
      <PageHeader title="Instances" description="What each Core instance last reported, and its dynamic DNS record." />
      {!isAdmin && !user.orgId ? (
        <Notice>You do not belong to an organization yet.</Notice>
      ) : (
        <InstancesView isAdmin={isAdmin} />
      )}
    </div>
  );
}

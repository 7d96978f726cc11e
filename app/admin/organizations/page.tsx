import type { Metadata } from 'next';
import { PageHeader } from '../../_components/ui';
import { OrganizationsTable } from './organizations-table';

export const metadata: Metadata = { title: 'Organizations · Admin' };

export default function AdminOrganizationsPage() {
  return (
    <div>
      <PageHeader title="Organizations" description="Status, tier and private-category access of every organization." />
      <OrganizationsTable />
    </div>
  );
}

import type { Metadata } from 'next';
import { PageHeader } from '../../_components/ui';
import { AuditTable } from './audit-table';

export const metadata: Metadata = { title: 'Audit log · Admin' };

export default function AdminAuditPage() {
  return (
    <div>
      <PageHeader title="Audit log" description="Who changed what, newest first. Secrets are never recorded." />
      <AuditTable />
    </div>
  );
}

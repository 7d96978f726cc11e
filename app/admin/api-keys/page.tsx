import type { Metadata } from 'next';
import { PageHeader } from '../../_components/ui';
import { ApiKeysTable } from './api-keys-table';

export const metadata: Metadata = { title: 'API keys · Admin' };

export default function AdminApiKeysPage() {
  return (
    <div>
      <PageHeader title="API keys" description="Instance keys of every organization. Revoking one stops that instance's access at once." />
      <ApiKeysTable />
    </div>
  );
}

import type { Metadata } from 'next';
import { ButtonLink, PageHeader } from '../../_components/ui';
import { TemplatesTable } from './templates-table';

export const metadata: Metadata = { title: 'Templates · Admin' };

export default function AdminTemplatesPage() {
  return (
    <div>
      <PageHeader title="Templates" description="Every template, private ones included." actions={<ButtonLink href="/admin/templates/new">New template</ButtonLink>} />
      <TemplatesTable />
    </div>
  );
}

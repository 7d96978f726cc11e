'use client';
import Link from 'next/link';
import { errorMessage } from '../../../_lib/errors';
import { trpc } from '../../../_lib/trpc';
import { ErrorState, Loading, PageHeader } from '../../../_components/ui';
import { TemplateForm } from '../template-form';

export function EditTemplate({ id }: { id: string }) {
  const t = trpc.dashboard.adminTemplate.useQuery({ id });
  if (t.isPending) return <Loading label="Loading the template…" rows={8} />;
  if (t.isError)
    return (
      <ErrorState title="This template could not be loaded" message={errorMessage(t.error)}>
        <Link href="/admin/templates" className="mt-2 inline-block font-medium underline">
          Back to templates
        </Link>
      </ErrorState>
    );
  return (
    <div>
      <PageHeader
        title={`Edit ${t.data.template.name}`}
        description={`/${t.data.template.slug} · updated ${t.data.template.updated_at.slice(0, 10)}`}
      />
      <TemplateForm template={t.data.template} />
    </div>
  );
}

import type { Metadata } from 'next';
import { PageHeader } from '../../../_components/ui';
import { TemplateForm } from '../template-form';

export const metadata: Metadata = { title: 'New template · Admin' };

export default function NewTemplatePage() {
  return (
    <div>
      <PageHeader title="New template" />
      <TemplateForm />
    </div>
  );
}

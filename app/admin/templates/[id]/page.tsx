import type { Metadata } from 'next';
import { EditTemplate } from './edit-template';

export const metadata: Metadata = { title: 'Edit template · Admin' };

export default async function EditTemplatePage({ params }: { params: Promise<{ id: string }> }) {
  return <EditTemplate id={(await params).id} />;
}

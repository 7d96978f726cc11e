import type { Metadata } from 'next';
import { OrganizationDetail } from './organization-detail';

export const metadata: Metadata = { title: 'Organization · Admin' };

export default async function OrganizationPage({ params }: { params: Promise<{ id: string }> }) {
  return <OrganizationDetail id={(await params).id} />;
}

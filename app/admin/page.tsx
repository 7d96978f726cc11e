import type { Metadata } from 'next';
import { PageHeader } from '../_components/ui';
import { StatsView } from './stats-view';

export const metadata: Metadata = { title: 'Admin' };

export default function AdminHome() {
  return (
    <div>
      <PageHeader title="Admin overview" description="System-wide counts. Every change you make here is recorded in the audit log." />
      <StatsView />
    </div>
  );
}

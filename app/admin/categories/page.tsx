import type { Metadata } from 'next';
import { PageHeader } from '../../_components/ui';
import { CategoriesView } from './categories-view';

export const metadata: Metadata = { title: 'Categories · Admin' };

export default function AdminCategoriesPage() {
  return (
    <div>
      <PageHeader title="Categories" description="Templates are grouped into categories; private categories are visible only to organizations holding a grant." />
      <CategoriesView />
    </div>
  );
}

import type { Metadata } from 'next';
import { CategoryDetail } from './category-detail';

export const metadata: Metadata = { title: 'Category · Admin' };

export default async function CategoryPage({ params }: { params: Promise<{ id: string }> }) {
  return <CategoryDetail id={(await params).id} />;
}

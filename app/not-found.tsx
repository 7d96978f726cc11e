import Link from 'next/link';
import { EmptyState } from './_components/ui';

export default function NotFound() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Not found</h1>
      <EmptyState title="There is nothing here, or you do not have access to it.">
        <Link href="/" className="font-medium text-blue-700 underline">Back to the catalog</Link>
      </EmptyState>
    </div>
  );
}

import Link from 'next/link';
import { EmptyState, Input, buttonClass } from './_components/ui';

export default function NotFound() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Not found</h1>
      <EmptyState title="There is nothing here, or you do not have access to it.">
        <form
          method="get"
          action="/"
          role="search"
          aria-label="Search the catalog"
          className="mx-auto mt-3 flex max-w-sm gap-2"
        >
          <label htmlFor="not-found-search" className="sr-only">
            Search the catalog
          </label>
          <Input id="not-found-search" name="search" type="search" placeholder="Search the catalog" />
          <button type="submit" className={buttonClass('secondary')}>
            Search
          </button>
        </form>
        <p className="mt-3">
          <Link href="/" className="font-medium text-blue-700 underline">
            Back to the catalog
          </Link>
        </p>
      </EmptyState>
    </div>
  );
}

/** A tag badge that is a link to the catalog filtered by that tag (cards and the template page). */
import Link from 'next/link';
import { tagHref } from '../_lib/catalog-params';

export function TagLink({ tag }: { tag: string }) {
  return (
    <Link
      href={tagHref(tag)}
      title={`Templates tagged ${tag}`}
      className={
        'inline-flex max-w-full items-center rounded-full bg-zinc-100 px-2 py-0.5 text-xs font-medium break-all ' +
        'text-zinc-800 ring-1 ring-zinc-300 ring-inset hover:bg-zinc-200 hover:underline'
      }
    >
      <span className="sr-only">Tag </span>
      {tag}
    </Link>
  );
}

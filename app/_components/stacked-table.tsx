/**
 * A table that becomes a stack of cards on a phone (below the sm breakpoint): each row a bordered block,
 * each cell a line with its column name before it (the cell's `data-label`), the header row kept for
 * assistive technology only. Nothing scrolls sideways and every action stays within the viewport.
 * At sm and up it is the usual scrollable table (ui.tsx's Table). Server-safe.
 */
import type { ReactNode } from 'react';

const PHONE =
  'max-sm:block max-sm:[&_tbody]:block max-sm:[&_tbody]:space-y-3 max-sm:[&_tbody]:divide-y-0 max-sm:[&_tr]:block max-sm:[&_tr]:rounded-lg max-sm:[&_tr]:border max-sm:[&_tr]:border-zinc-200 max-sm:[&_tr]:px-3 max-sm:[&_tr]:py-2 ' +
  'max-sm:[&_td]:block max-sm:[&_td[data-label]]:flex max-sm:[&_td[data-label]]:flex-wrap max-sm:[&_td[data-label]]:items-baseline max-sm:[&_td[data-label]]:gap-x-2 max-sm:[&_td]:px-0 max-sm:[&_td]:py-1 max-sm:[&_td]:text-left max-sm:[&_td]:whitespace-normal max-sm:[&_td]:break-words ' +
  'max-sm:[&_td[data-label]]:before:content-[attr(data-label)] max-sm:[&_td[data-label]]:before:w-24 max-sm:[&_td[data-label]]:before:shrink-0 max-sm:[&_td[data-label]]:before:text-xs max-sm:[&_td[data-label]]:before:font-semibold max-sm:[&_td[data-label]]:before:text-zinc-600 max-sm:[&_td[data-label]]:before:uppercase ' +
  'max-sm:[&_thead]:sr-only';

export function StackedTable({ children, caption }: { children: ReactNode; caption: string }) {
  return (
    // relative: keeps the screen-reader-only header inside the box; focusable region: keyboard users can scroll it at sm+.
    <div className="relative sm:overflow-x-auto" tabIndex={0} role="region" aria-label={caption}>
      <table className={`min-w-full divide-y divide-zinc-200 text-sm ${PHONE}`}>
        <caption className="sr-only">{caption}</caption>
        {children}
      </table>
    </div>
  );
}

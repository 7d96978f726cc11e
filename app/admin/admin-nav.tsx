'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useRef } from 'react';
import { cx } from '../_components/ui';

const LINKS = [
  { href: '/admin', label: 'Overview' },
  { href: '/admin/templates', label: 'Templates' },
  { href: '/admin/categories', label: 'Categories' },
  { href: '/admin/organizations', label: 'Organizations' },
  { href: '/admin/users', label: 'Users' },
  { href: '/admin/api-keys', label: 'Instance keys' },
  { href: '/admin/audit', label: 'Audit log' },
];

/**
 * The admin tabs. On a phone the bar scrolls sideways inside itself (the page does not), whole tabs only
 * (no label is cut: tabs do not shrink), with the current tab scrolled into view.
 */
export function AdminNav() {
  const pathname = usePathname();
  const active = useRef<HTMLAnchorElement>(null);
  useEffect(() => {
    active.current?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [pathname]);
  return (
    // On a phone the right edge fades out: the tabs visibly go on (scroll for more) instead of looking cut.
    <nav
      aria-label="Admin"
      className={
        '-mx-4 overflow-x-auto overscroll-x-contain px-4 [scrollbar-width:thin] sm:mx-0 sm:px-0 ' +
        'max-sm:[mask-image:linear-gradient(to_right,#000_calc(100%-2.5rem),transparent)]'
      }
    >
      <ul className="flex w-max min-w-full gap-1 border-b border-zinc-200">
        {LINKS.map((l) => {
          const current = l.href === '/admin' ? pathname === '/admin' : pathname.startsWith(l.href);
          return (
            <li key={l.href} className="shrink-0">
              <Link
                ref={current ? active : undefined}
                href={l.href}
                aria-current={current ? 'page' : undefined}
                className={cx(
                  '-mb-px inline-block border-b-2 px-3 py-2 text-sm font-medium whitespace-nowrap',
                  current ? 'border-blue-700 text-blue-800' : 'border-transparent text-zinc-700 hover:text-zinc-900',
                )}
              >
                {l.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

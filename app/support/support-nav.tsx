'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { cx } from '../_components/ui';

export function SupportNav({ showEvents }: { showEvents: boolean }) {
  const pathname = usePathname();
  const links = [
    { href: '/support', label: 'Tickets', active: pathname === '/support' || pathname.startsWith('/support/tickets') },
    { href: '/support/instances', label: 'Instances', active: pathname.startsWith('/support/instances') },
    ...(showEvents
      ? [{ href: '/support/addon-events', label: 'Addon events', active: pathname.startsWith('/support/addon-events') }]
      : []),
  ];
  return (
    <nav aria-label="Support" className="-mx-4 overflow-x-auto px-4">
      <ul className="flex min-w-max gap-1 border-b border-zinc-200">
        {links.map((l) => (
          <li key={l.href}>
            <Link
              href={l.href}
              aria-current={l.active ? 'page' : undefined}
              className={cx(
                '-mb-px inline-block border-b-2 px-3 py-2 text-sm font-medium',
                l.active ? 'border-blue-700 text-blue-800' : 'border-transparent text-zinc-700 hover:text-zinc-900',
              )}
            >
              {l.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

'use client';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { cx } from '../_components/ui';

const LINKS = [
  { href: '/admin', label: 'Overview' },
  { href: '/admin/templates', label: 'Templates' },
  { href: '/admin/categories', label: 'Categories' },
  { href: '/admin/organizations', label: 'Organizations' },
  { href: '/admin/users', label: 'Users' },
  { href: '/admin/api-keys', label: 'API keys' },
  { href: '/admin/audit', label: 'Audit log' },
];

export function AdminNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Admin" className="-mx-4 overflow-x-auto px-4">
      <ul className="flex min-w-max gap-1 border-b border-zinc-200">
        {LINKS.map((l) => {
          const active = l.href === '/admin' ? pathname === '/admin' : pathname.startsWith(l.href);
          return (
            <li key={l.href}>
              <Link
                href={l.href}
                aria-current={active ? 'page' : undefined}
                className={cx('-mb-px inline-block border-b-2 px-3 py-2 text-sm font-medium', active ? 'border-blue-700 text-blue-800' : 'border-transparent text-zinc-700 hover:text-zinc-900')}
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

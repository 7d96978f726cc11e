'use client';
import Link from 'next/link';
import { usePathname, useSearchParams } from 'next/navigation';
import { Suspense } from 'react';
import { signOutAction } from '../signin/actions';
import { cx } from './ui';

export function SiteHeader({ user, isAdmin }: { user: { name: string; email: string } | null; isAdmin: boolean }) {
  const pathname = usePathname();
  const links = [
    { href: '/', label: 'Catalog', active: pathname === '/' || pathname.startsWith('/templates') },
    ...(user ? [{ href: '/account', label: 'Account', active: pathname.startsWith('/account') }] : []),
    ...(user ? [{ href: '/support', label: 'Support', active: pathname.startsWith('/support') }] : []),
    ...(isAdmin ? [{ href: '/admin', label: 'Admin', active: pathname.startsWith('/admin') }] : []),
  ];
  return (
    <header className="border-b border-zinc-200 bg-white">
      <div className="mx-auto flex w-full max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-4 py-3">
        <Link href="/" className="flex items-center gap-2 text-lg font-semibold text-zinc-900">
          <span
            aria-hidden="true"
            className="grid h-7 w-7 place-items-center rounded-lg bg-blue-700 text-sm font-bold text-white"
          >
            H
          </span>
          Hub
        </Link>
        <nav aria-label="Main" className="order-3 w-full sm:order-none sm:w-auto">
          <ul className="flex gap-1">
            {links.map((l) => (
              <li key={l.href}>
                <Link
                  href={l.href}
                  aria-current={l.active ? 'page' : undefined}
                  className={cx(
                    'rounded-lg px-3 py-1.5 text-sm font-medium',
                    l.active ? 'bg-zinc-900 text-white' : 'text-zinc-700 hover:bg-zinc-100',
                  )}
                >
                  {l.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="ml-auto flex items-center gap-3 text-sm">
          {user ? (
            <>
              <span className="hidden max-w-[16rem] truncate text-zinc-700 md:inline" title={user.email}>
                {user.name || user.email}
              </span>
              <form action={signOutAction}>
                <button
                  type="submit"
                  className="rounded-lg border border-zinc-300 px-3 py-1.5 font-medium text-zinc-800 hover:bg-zinc-100"
                >
                  Sign out
                </button>
              </form>
            </>
          ) : (
            // The link carries the page it was clicked on; signing in comes back to it.
            <Suspense fallback={<SignInLink href="/signin" />}>
              <SignInHere />
            </Suspense>
          )}
        </div>
      </div>
    </header>
  );
}

const signInClass = 'rounded-lg bg-blue-700 px-3 py-1.5 font-medium text-white hover:bg-blue-800';

function SignInLink({ href }: { href: string }) {
  return (
    <Link href={href} className={signInClass}>
      Sign in
    </Link>
  );
}

/** "/signin?callbackUrl=<this page>" (not on the sign-in page itself). */
function SignInHere() {
  const pathname = usePathname();
  const search = useSearchParams();
  if (pathname === '/signin') return <SignInLink href={`/signin${search.size > 0 ? `?${search.toString()}` : ''}`} />;
  const here = `${pathname}${search.size > 0 ? `?${search.toString()}` : ''}`;
  return (
    <SignInLink href={here === '/' ? '/signin?callbackUrl=%2F' : `/signin?callbackUrl=${encodeURIComponent(here)}`} />
  );
}

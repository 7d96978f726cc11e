import type { ReactNode } from 'react';
import Link from 'next/link';
import { requireUser } from '@/server/auth/session';
import { AdminNav } from './admin-nav';

export const dynamic = 'force-dynamic';

/** Platform admins only. Hiding this is not the authorization: every admin procedure checks the role again. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const session = await requireUser('/admin');
  if (!session.isAdmin) {
    return (
      <div className="mx-auto max-w-lg pt-6 sm:pt-12">
        <div role="alert" className="rounded-xl border border-zinc-200 bg-white p-6 shadow-sm">
          <h1 className="text-xl font-semibold">Not allowed</h1>
          <p className="mt-2 text-sm text-zinc-700">
            The admin pages are for platform administrators. You are signed in as {session.user.email}, who is not one. Ask a Hub
            superadmin if you need this access.
          </p>
          <p className="mt-4 text-sm">
            <Link href="/account" className="font-medium text-blue-700 underline">Go to your account</Link>
          </p>
        </div>
      </div>
    );
  }
  return (
    <div className="space-y-6">
      <AdminNav />
      {children}
    </div>
  );
}

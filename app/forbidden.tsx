import type { Metadata } from 'next';
import Link from 'next/link';
import { pageSession } from '@/server/auth/session';

export const metadata: Metadata = { title: 'Not allowed' };

/** What `forbidden()` (next/navigation) renders, answered with HTTP 403. */
export default async function Forbidden() {
  const { user } = await pageSession();
  return (
    <div className="mx-auto max-w-lg pt-6 sm:pt-12">
      <div role="alert" className="rounded-xl border border-zinc-200 bg-white p-6 shadow-sm">
        <h1 className="text-xl font-semibold">Not allowed</h1>
        <p className="mt-2 text-sm text-zinc-700">
          {user ? `You are signed in as ${user.email}, who may not see this page.` : 'You may not see this page.'} Pages
          like this one are for platform administrators: ask a Hub superadmin if you need this access.
        </p>
        <p className="mt-4 text-sm">
          <Link href={user ? '/account' : '/'} className="font-medium text-blue-700 underline">
            {user ? 'Go to your account' : 'Back to the catalog'}
          </Link>
        </p>
      </div>
    </div>
  );
}

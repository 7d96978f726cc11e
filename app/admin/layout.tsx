import type { ReactNode } from 'react';
import { forbidden } from 'next/navigation';
import { requireUser } from '@/server/auth/session';
import { AdminNav } from './admin-nav';

export const dynamic = 'force-dynamic';

/** Platform admins only. Hiding this is not the authorization: every admin procedure checks the role again. */
export default async function AdminLayout({ children }: { children: ReactNode }) {
  const session = await requireUser('/admin');
  // 403 with app/forbidden.tsx ("Not allowed", naming who is signed in).
  if (!session.isAdmin) forbidden();
  return (
    <div className="space-y-6">
      <AdminNav />
      {children}
    </div>
  );
}

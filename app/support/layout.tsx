import type { ReactNode } from 'react';
import { requireUser } from '@/server/auth/session';
import { SupportNav } from './support-nav';

export const dynamic = 'force-dynamic';

/** Signed-in people only. What each page shows is decided by the procedures it calls (role and organization checked there). */
export default async function SupportLayout({ children }: { children: ReactNode }) {
  const { user, isAdmin } = await requireUser('/support');
  return (
    <div className="space-y-6">
      <SupportNav showEvents={isAdmin || user.orgRole === 'admin'} />
      {children}
    </div>
  );
}

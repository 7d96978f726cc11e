import type { Metadata, Viewport } from 'next';
import type { ReactNode } from 'react';
import { pageSession } from '@/server/auth/session';
import { SiteHeader } from './_components/site-header';
import { Providers } from './providers';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Hub', template: '%s · Hub' },
  description: 'Catalog and account service for Core instances',
};
export const viewport: Viewport = { width: 'device-width', initialScale: 1 };

export default async function RootLayout({ children }: { children: ReactNode }) {
  const session = await pageSession();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <a
          href="#main"
          className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2"
        >
          Skip to content
        </a>
        <Providers>
          <SiteHeader
            user={session.user ? { name: session.user.name, email: session.user.email } : null}
            isAdmin={session.isAdmin}
          />
          <main id="main" className="mx-auto w-full max-w-6xl px-4 py-6 sm:py-8">
            {children}
          </main>
        </Providers>
      </body>
    </html>
  );
}

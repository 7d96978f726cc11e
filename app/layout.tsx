import type { ReactNode } from 'react';

export const metadata = { title: 'Hub', description: 'Catalog and account service for Core instances' };

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}

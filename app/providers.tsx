'use client';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { httpBatchLink } from '@trpc/client';
import { useState, type ReactNode } from 'react';
import { Toaster } from 'sonner';
import { trpc } from './_lib/trpc';

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () =>
      new QueryClient({
        defaultOptions: {
          queries: {
            staleTime: 10_000,
            refetchOnWindowFocus: false,
            // A refusal (401/403/404) will not change by asking again.
            retry: (count, err) => {
              const status = (err as { data?: { httpStatus?: number } } | null)?.data?.httpStatus ?? 0;
              return count < 2 && !(status >= 400 && status < 500);
            },
          },
        },
      }),
  );
  const [client] = useState(() => trpc.createClient({ links: [httpBatchLink({ url: '/api/trpc' })] }));
  return (
    <trpc.Provider client={client} queryClient={queryClient}>
      <QueryClientProvider client={queryClient}>
        {children}
        {/* Bottom right: never over the header's name and Sign out; follows the system's light or dark theme. */}
        <Toaster position="bottom-right" closeButton theme="system" />
      </QueryClientProvider>
    </trpc.Provider>
  );
}

import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { ApiError } from './http';
import { sessionStore } from './session';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // Client errors (403, 404, 401) are answers, not hiccups: no retries for them.
      retry: (count, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && count < 2,
      refetchOnWindowFocus: false,
    },
  },
});

// Nothing fetched for one session is shown to the next.
let signedIn = sessionStore.get().session !== null;
sessionStore.subscribe(() => {
  const now = sessionStore.get().session !== null;
  if (now !== signedIn) queryClient.clear();
  signedIn = now;
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);

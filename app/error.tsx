'use client';
import { Button, ErrorState } from './_components/ui';

export default function RootError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <ErrorState
      title="This page could not be shown"
      message={error.digest ? `Error reference: ${error.digest}` : error.message}
    >
      <Button className="mt-3" variant="secondary" onClick={reset}>
        Try again
      </Button>
    </ErrorState>
  );
}

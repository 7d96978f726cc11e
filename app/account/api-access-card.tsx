'use client';
import { useState } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../_lib/errors';
import { trpc } from '../_lib/trpc';
import { CopyButton } from '../_components/dialog';
import { Button, Card, Field, Select } from '../_components/ui';

const TTLS = [
  { value: 900, label: '15 minutes' },
  { value: 3600, label: '1 hour' },
  { value: 8 * 3600, label: '8 hours' },
];

export function ApiAccessCard() {
  const [ttl, setTtl] = useState(3600);
  const [issued, setIssued] = useState<{ token: string; expires_at: string } | null>(null);
  const issue = trpc.dashboard.issueApiToken.useMutation({
    onSuccess: (data) => {
      setIssued(data);
      toast.success('API token issued');
    },
    onError: (err) => toast.error(errorMessage(err)),
  });
  const origin = typeof window === 'undefined' ? '' : window.location.origin;
  return (
    <Card
      title="API access"
      description="A short-lived token for scripts calling the Hub's REST API (/api/v1) as you, with your current role. Treat it like a password."
    >
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(e) => {
          e.preventDefault();
          issue.mutate({ ttl_seconds: ttl });
        }}
      >
        <Field id="token-ttl" label="Valid for">
          <Select id="token-ttl" value={ttl} onChange={(e) => setTtl(Number(e.target.value))} className="w-40">
            {TTLS.map((t) => (
              <option key={t.value} value={t.value}>
                {t.label}
              </option>
            ))}
          </Select>
        </Field>
        <Button type="submit" variant="secondary" disabled={issue.isPending}>
          {issue.isPending ? 'Issuing…' : 'Issue token'}
        </Button>
      </form>
      {issued ? (
        <div className="mt-4 space-y-2 text-sm" data-testid="api-token">
          <p className="font-medium text-amber-900">Copy it now: you will not see it again. It expires {issued.expires_at.replace('T', ' ').slice(0, 16)} UTC.</p>
          <div className="flex items-start gap-2">
            <code className="block flex-1 rounded-lg border border-zinc-300 bg-zinc-50 px-3 py-2 font-mono text-xs break-all">{issued.token}</code>
            <CopyButton value={issued.token} what="API token" />
          </div>
          <p className="text-zinc-700">Example:</p>
          <pre className="rounded-lg bg-zinc-900 p-3 font-mono text-xs break-all whitespace-pre-wrap text-zinc-100">
            {`curl -H "Authorization: Bearer $HUB_TOKEN" ${origin}/api/v1/account/profile`}
          </pre>
        </div>
      ) : null}
    </Card>
  );
}

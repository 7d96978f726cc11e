/**
 * Issue 21: the audit log named a live script token (api_token) "deleted" because its target was never joined.
 * A token that exists is shown by its label and not marked deleted; once its row is gone it is.
 */
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { scriptTokens } from '../../server/db/schema';
import { api, createUser } from '../helpers';
import { sessionCallerAs } from '../support-helpers';

it('names a live API token by its label, and a removed one as deleted', async () => {
  const admin = await createUser({ role: 'admin' });
  const issued = await (
    await sessionCallerAs(admin.token)
  ).dashboard.issueApiToken({ ttl_seconds: 600, label: 'nightly export' });
  const entryOf = async () => {
    const res = await api('/admin/audit-log?limit=100&action=api_token.issue', { token: admin.token });
    expect(res.status).toBe(200);
    return (res.body.entries as { target_id: string; target_name: string | null; target_deleted: boolean }[]).find(
      (e) => e.target_id === issued.id,
    )!;
  };
  expect(await entryOf()).toMatchObject({ target_name: 'nightly export', target_deleted: false });

  await (await getDb()).delete(scriptTokens).where(eq(scriptTokens.id, issued.id));
  expect(await entryOf()).toMatchObject({ target_deleted: true });
});

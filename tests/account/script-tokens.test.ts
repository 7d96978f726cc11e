/**
 * Script tokens (issue 13, "CLI tokens are capped and listed"): every Hub JWT issued for a script (the
 * dashboard's API access panel, `hub token`) is recorded, listed to its owner at /account/api-tokens
 * (never the token itself) and revocable one by one; a revoked token is refused at once.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { decodeJwt } from 'jose';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { getDb } from '../../server/db/client';
import { auditLog } from '../../server/db/schema';
import { api, createUser } from '../helpers';
import { sessionCallerAs } from '../support-helpers';
import { node } from '../compiled';
import { queryDataFolder, seedDataFolder } from '../../scripts/test-databases';

async function issue(sessionToken: string, label?: string, ttl = 3600) {
  return (await sessionCallerAs(sessionToken)).dashboard.issueApiToken({
    ttl_seconds: ttl,
    ...(label === undefined ? {} : { label }),
  });
}

describe('API tokens from the dashboard', () => {
  it('are listed to their owner after issue (label, source, created, expires; never the token), not to others', async () => {
    const user = await createUser();
    const other = await createUser();
    const before = Date.now();
    const issued = await issue(user.token, 'nightly backup script', 900);
    expect(decodeJwt(issued.token).jti).toBe(issued.id);

    const listed = await api('/account/api-tokens', { token: user.token });
    expect(listed.status).toBe(200);
    expect(listed.body.tokens).toHaveLength(1);
    const [row] = listed.body.tokens;
    expect(row).toMatchObject({
      id: issued.id,
      label: 'nightly backup script',
      source: 'dashboard',
      status: 'active',
      revoked_at: null,
    });
    expect(new Date(row.created_at).getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(row.expires_at).toBe(issued.expires_at);
    expect(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()).toBeGreaterThan(895_000);
    expect(JSON.stringify(listed.body)).not.toContain(issued.token);

    // Another user sees none of it.
    expect((await api('/account/api-tokens', { token: other.token })).body.tokens).toEqual([]);

    // A default label, newest first; the token itself records when it was last used.
    const second = await issue(user.token);
    expect(second.label).toBe('Dashboard API access');
    expect((await api('/account/profile', { token: second.token })).status).toBe(200);
    const again = await api('/account/api-tokens', { token: second.token });
    expect(again.body.tokens.map((t: { id: string }) => t.id)).toEqual([second.id, issued.id]);
    await expect
      .poll(async () => (await api('/account/api-tokens', { token: user.token })).body.tokens[0].last_used_at)
      .not.toBeNull();

    const audit = await (
      await getDb()
    )
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'api_token.issue'), eq(auditLog.targetId, issued.id)));
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(issued.token);
  });

  it('a revoked token is refused at once (401), the others keep working; revoking again is harmless', async () => {
    const user = await createUser();
    const doomed = await issue(user.token, 'leaked');
    const kept = await issue(user.token, 'kept');
    expect((await api('/account/profile', { token: doomed.token })).status).toBe(200);

    const res = await api('/account/api-tokens', { method: 'DELETE', token: user.token, body: { id: doomed.id } });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatchObject({ id: doomed.id, status: 'revoked' });

    const refused = await api('/account/profile', { token: doomed.token });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/revoked/);
    expect((await api('/catalog/categories', { token: doomed.token })).status).toBe(401);
    expect((await api('/account/profile', { token: kept.token })).status).toBe(200);
    expect((await api('/account/profile', { token: user.token })).status).toBe(200); // the browser session is not a script token

    const listed = (await api('/account/api-tokens', { token: user.token })).body.tokens;
    expect(listed.find((t: { id: string }) => t.id === doomed.id)).toMatchObject({ status: 'revoked' });
    expect(listed.find((t: { id: string }) => t.id === kept.id)).toMatchObject({ status: 'active' });

    // Again, and with ?id= instead of a body: still revoked, still 200.
    const twice = await api(`/account/api-tokens?id=${doomed.id}`, { method: 'DELETE', token: kept.token });
    expect(twice.status).toBe(200);
    expect(twice.body.token.revoked_at).toBe(res.body.token.revoked_at);
    const audit = await (
      await getDb()
    )
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, 'api_token.revoke'), eq(auditLog.targetId, doomed.id)));
    expect(audit).toHaveLength(1);

    // A token can revoke itself; it is refused on its very next call.
    expect(
      (await api('/account/api-tokens', { method: 'DELETE', token: kept.token, body: { id: kept.id } })).status,
    ).toBe(200);
    expect((await api('/account/profile', { token: kept.token })).status).toBe(401);
  });

  it("another user's token id is 404 and that token keeps working; a made-up id is 404; a bad id is 400", async () => {
    const owner = await createUser();
    const stranger = await createUser();
    const issued = await issue(owner.token, 'owner script');
    const res = await api('/account/api-tokens', { method: 'DELETE', token: stranger.token, body: { id: issued.id } });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
    expect((await api('/account/profile', { token: issued.token })).status).toBe(200);
    expect((await api('/account/api-tokens', { token: owner.token })).body.tokens[0].status).toBe('active');
    expect(
      (await api('/account/api-tokens', { method: 'DELETE', token: owner.token, body: { id: crypto.randomUUID() } }))
        .status,
    ).toBe(404);
    expect(
      (await api('/account/api-tokens', { method: 'DELETE', token: owner.token, body: { id: 'nope' } })).status,
    ).toBe(400);
    expect((await api('/account/api-tokens')).status).toBe(401);
  });

  it('sign out everywhere shows in the listing: earlier tokens are signed_out (and refused)', async () => {
    const user = await createUser();
    const issued = await issue(user.token);
    expect((await api('/account/sign-out-everywhere', { method: 'POST', token: user.token, body: {} })).status).toBe(
      200,
    );
    expect((await api('/account/profile', { token: issued.token })).status).toBe(401);
    await new Promise((r) => setTimeout(r, 1100)); // JWT iat has one-second precision
    const fresh = await issue((await createSessionFor(user.id)) as string);
    const listed = (await api('/account/api-tokens', { token: fresh.token })).body.tokens;
    expect(listed.find((t: { id: string }) => t.id === issued.id)).toMatchObject({ status: 'signed_out' });
    expect(listed.find((t: { id: string }) => t.id === fresh.id)).toMatchObject({ status: 'active' });
  });

  it('a JWT naming a script token that does not exist is refused', async () => {
    const user = await createUser();
    const { signJwt } = await import('../../server/domain/jwt');
    const { HUB_API_AUDIENCE } = await import('../../server/config');
    const forged = await signJwt({
      subject: user.id,
      audience: HUB_API_AUDIENCE,
      ttlSeconds: 60,
      claims: { jti: crypto.randomUUID() },
    });
    expect((await api('/account/profile', { token: forged })).status).toBe(401);
    const malformed = await signJwt({
      subject: user.id,
      audience: HUB_API_AUDIENCE,
      ttlSeconds: 60,
      claims: { jti: "x' or 1=1" },
    });
    expect((await api('/account/profile', { token: malformed })).status).toBe(401);
  });
});

async function createSessionFor(userId: string) {
  const { signUserToken } = await import('../../server/domain/jwt');
  return signUserToken(userId);
}

describe('hub token (CLI)', () => {
  vi.setConfig({ testTimeout: 240_000 });
  const dir = mkdtempSync(path.join(tmpdir(), 'hub-script-tokens-'));
  // A migrated database (this is about the tokens, not about creating a data folder: initdb costs ~4 s of CPU).
  seedDataFolder(dir, process.env.HUB_TEST_PGLITE_SNAPSHOT);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = { ...process.env, HUB_DATA_DIR: dir, DATABASE_URL: '' };
  const run = (args: string[]) => spawnSync(...node('hub-cli', ...args), { env, encoding: 'utf8', timeout: 200_000 });

  it('records the token it prints (source cli, its label and expiry), capped at 30 days', async () => {
    expect(run(['user', 'create', '--email', 'ops@example.test']).status).toBe(0);
    const printed = run([
      'token',
      '--email',
      'ops@example.test',
      '--ttl',
      String(30 * 86_400),
      '--label',
      'deploy pipeline',
    ]);
    expect(printed.status, printed.stderr).toBe(0);
    const token = printed.stdout.trim();
    const claims = decodeJwt(token);
    expect(claims.exp! - claims.iat!).toBe(30 * 86_400);

    // What the CLI left in its database.
    const rows = await queryDataFolder<Record<string, unknown>>(dir, 'select * from script_tokens', { pg_trgm });
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ id: claims.jti, label: 'deploy pipeline', source: 'cli', revoked_at: null });
    expect(new Date(rows[0]!.expires_at as Date | string).getTime()).toBe(claims.exp! * 1000);
    expect(JSON.stringify(rows)).not.toContain(token);

    const capped = run(['token', '--email', 'ops@example.test', '--ttl', String(30 * 86_400 + 1)]);
    expect(capped.status).toBe(2);
    expect(capped.stderr).toMatch(/30 days/);
  });
});

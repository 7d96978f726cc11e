/**
 * Sessions end on the server: sign-out (and "sign out everywhere") makes the user's earlier Hub JWTs
 * fail at once; a member of a suspended organization loses its catalog view and its account operations;
 * `hub token --ttl` is capped at 30 days.
 */
import { spawnSync } from 'node:child_process';
import { expect, it } from 'vitest';
import { signUserToken } from '../../server/domain/jwt';
import { api, createCategory, createOrg, createTemplate, createUser } from '../helpers';
import { node } from '../compiled';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('sign out everywhere refuses every earlier JWT of the user at once, not later ones or other users', async () => {
  const user = await createUser();
  const other = await createUser();
  const second = await signUserToken(user.id); // e.g. a CLI token or another browser
  expect((await api('/account/profile', { token: user.token })).status).toBe(200);
  const res = await api('/account/sign-out-everywhere', { method: 'POST', token: user.token, body: {} });
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ signed_out: true });
  for (const token of [user.token, second]) {
    const refused = await api('/account/profile', { token });
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/signed out/);
  }
  expect((await api('/account/profile', { token: other.token })).status).toBe(200);
  await sleep(1100); // JWT iat has one-second precision
  expect((await api('/account/profile', { token: await signUserToken(user.id) })).status).toBe(200);
});

it('a member of a suspended organization loses its catalog view and account operations until it is active again', async () => {
  const member = await createUser();
  const admin = await createUser({ role: 'admin' });
  const org = await createOrg({ admin: member });
  const cat = await createCategory({ isPrivate: true });
  const own = await createTemplate({
    categoryId: cat.id,
    slug: `own-${org.id.slice(0, 8)}`,
    orgId: org.id,
    isPublic: false,
  });
  const sees = async () => (await api(`/catalog/templates/${own.slug}`, { token: member.token })).status;
  expect(await sees()).toBe(200);
  expect((await api('/account/organizations', { token: member.token })).status).toBe(200);

  const suspend = (status: string) =>
    api('/admin/organizations', { method: 'PUT', token: admin.token, body: { id: org.id, status } });
  expect((await suspend('suspended')).status).toBe(200);
  expect(await sees()).toBe(404);
  const account = await api('/account/organizations', { token: member.token });
  expect(JSON.stringify(account.body)).not.toContain(org.id);
  expect(
    (await api('/account/api-keys', { method: 'POST', token: member.token, body: { name: 'x' } })).status,
  ).toBeGreaterThanOrEqual(400);

  expect((await suspend('active')).status).toBe(200);
  expect(await sees()).toBe(200);
});

it('hub token --ttl is capped at 30 days', () => {
  const run = spawnSync(...node('hub-cli', 'token', '--email', 'nobody@example.test', '--ttl', String(31 * 86_400)), {
    env: { ...process.env, HUB_DATA_DIR: 'memory://', DATABASE_URL: '' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  expect(run.status).not.toBe(0);
  expect(run.stderr).toMatch(/--ttl must be .* 2592000 \(30 days\)/);
});

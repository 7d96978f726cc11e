/**
 * Trust anchors and the temporary admin:
 * - the Hub URL and the OIDC issuer must be https (loopback excepted), from the environment and settings alike;
 * - the temporary admin's password has the local users' minimum, or Core refuses to start;
 * - its refresh tokens are bound to the variables' fingerprint: a changed password ends every session at
 *   the next refresh (Core restarted on the same database, as an operator does after a leak);
 * - every start warns while permanent admins exist and the variables are still set.
 */
import { issueSecret } from '@shared/tokens';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv, type CoreConfig } from '../src/config';
import { ADMIN_PASSWORD, freshDatabase, startCore, type TestCore } from './helpers';

const TEMP = { username: 'root', password: 'temporary admin password' };

describe('the environment', () => {
  it('refuses a temporary admin password shorter than 12 characters, saying so', () => {
    expect(() => configFromEnv({ SVC_TEMP_ADMIN_USERNAME: 'root', SVC_TEMP_ADMIN_PASSWORD: 'short-pass1' })).toThrow(
      /SVC_TEMP_ADMIN_PASSWORD is shorter than 12 characters \(the minimum for local users\): choose a longer one/,
    );
    expect(
      configFromEnv({ SVC_TEMP_ADMIN_USERNAME: 'root', SVC_TEMP_ADMIN_PASSWORD: 'twelve-chars' }).temporaryAdmin,
    ).toEqual({ username: 'root', password: 'twelve-chars' });
  });

  it('refuses http:// for the Hub URL and the OIDC issuer except on loopback', () => {
    const hub = (url: string) =>
      configFromEnv({ CORE_HUB_URL: url, CORE_HUB_INSTANCE_KEY: issueSecret('svh_').secret });
    expect(() => hub('http://hub.example.com')).toThrow(
      /CORE_HUB_URL must be https:\/\/ \(plain http:\/\/ is accepted on loopback only/,
    );
    expect(() => configFromEnv({ CORE_OIDC_ISSUER: 'http://idp.example.com', CORE_OIDC_CLIENT_ID: 'c' })).toThrow(
      /CORE_OIDC_ISSUER must be https/,
    );
    for (const ok of ['https://hub.example.com', 'http://127.0.0.1:3000', 'http://localhost:3000', 'http://[::1]:3000'])
      expect(hub(ok).hub?.url).toBe(ok);
  });
});

describe('settings', () => {
  let t: TestCore;
  let db: Awaited<ReturnType<typeof freshDatabase>>;
  beforeAll(async () => {
    db = await freshDatabase();
    t = await startCore({ temporaryAdmin: TEMP }, db);
  });
  afterAll(async () => {
    await t?.stop();
    await db?.drop();
  });

  it('refuse http:// for the OIDC issuer and the Hub URL except on loopback, before any network call', async () => {
    const admin = (await t.call('POST', '/api/v1/auth/login', { body: TEMP })).body.access_token;
    const oidc = await t.call('PUT', '/api/v1/settings/oidc', {
      token: admin,
      body: { issuer: 'http://idp.example.com', client_id: 'core' },
    });
    expect(oidc.status).toBe(400);
    expect(oidc.body.message).toMatch(/^Invalid input: issuer: must be https:\/\//);
    const hub = await t.call('PUT', '/api/v1/settings/hub', {
      token: admin,
      body: { hub_url: 'http://hub.example.com', instance_key: 'svh_x' },
    });
    expect(hub.status).toBe(400);
    expect(hub.body.message).toMatch(/^Invalid input: hub_url: must be https:\/\//);
    expect((await t.call('GET', '/api/v1/settings', { token: admin })).body.oidc.source).toBe('none');
  });
});

describe('the temporary admin across restarts', () => {
  let store: Awaited<ReturnType<typeof freshDatabase>>;
  let dataDir: string | null = null;
  const running: TestCore[] = [];
  const start = async (overrides: Partial<CoreConfig>) => {
    const t = await startCore(
      { secret: 'trust-anchors-test-master-secret', ...(dataDir ? { dataDir } : {}), ...overrides },
      store,
    );
    running.push(t);
    return t;
  };
  const stop = async (t: TestCore) => {
    await t.stop();
    running.splice(running.indexOf(t), 1);
  };

  beforeAll(async () => {
    store = await freshDatabase();
    if (!store.databaseUrl) dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coresec-trust-'));
  });
  afterAll(async () => {
    for (const t of running) await t.stop();
    await store?.drop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('a changed password ends the held refresh token; the unchanged one keeps working; permanent admins bring a warning', async () => {
    let t = await start({ temporaryAdmin: TEMP });
    expect(t.logs.join('\n')).not.toMatch(/permanent admins exist/);
    const first = (await t.call('POST', '/api/v1/auth/login', { body: TEMP })).body;
    const second = (await t.call('POST', '/api/v1/auth/login', { body: TEMP })).body;
    expect(
      (
        await t.call('POST', '/api/v1/users', {
          token: first.access_token,
          body: { email: 'perm@example.test', password: ADMIN_PASSWORD, role: 'admin' },
        })
      ).status,
    ).toBe(201);
    await stop(t);

    // Same variables: the session goes on (the control); permanent admins exist, so the start warns.
    t = await start({ temporaryAdmin: TEMP });
    const kept = await t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: second.refresh_token } });
    expect(kept.status).toBe(200);
    expect(t.logs.join('\n')).toMatch(
      /permanent admins exist, yet the temporary admin is still enabled: remove SVC_TEMP_ADMIN_USERNAME and SVC_TEMP_ADMIN_PASSWORD/,
    );
    await stop(t);

    // The operator changes the password after a leak: every held refresh token is refused.
    t = await start({ temporaryAdmin: { username: TEMP.username, password: 'a brand new temporary password' } });
    const ended = await t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: first.refresh_token } });
    expect(ended.status).toBe(401);
    const rotated = await t.call('POST', '/api/v1/auth/refresh', { body: { refresh_token: kept.body.refresh_token } });
    expect(rotated.status).toBe(401);
    expect((await t.call('GET', '/api/v1/auth/me', { token: kept.body.access_token })).status).toBe(401);
  }, 60_000);
});

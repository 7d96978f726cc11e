/**
 * Secrets: sealed at rest, values only to admins, never in a log line, an audit record or an error;
 * the master secret is generated and kept in the data folder (never in the database) when CORE_SECRET is unset on
 * the embedded database, and survives a restart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineTokenAudit, secrets, settings } from '../src/db/schema';
import { freshDatabase, localUser, startCore, type TestCore } from './helpers';

const TEMP = { username: 'root', password: 'temporary admin password' };
const VALUE = 'hunter2-' + 'S3cr3t-value-that-must-not-leak';
let db: Awaited<ReturnType<typeof freshDatabase>>;
let dataDir: string;
let t: TestCore;

// Embedded without CORE_SECRET: the generated master secret must be kept and reused after a restart. A database
// server needs CORE_SECRET (master-secret.test.ts).
const SERVER_SECRET = 'secrets-test-master-secret-0123456789abcdef';
const start = () =>
  startCore(
    { temporaryAdmin: TEMP, secret: db.databaseUrl ? SERVER_SECRET : null, dataDir: db.databaseUrl ? null : dataDir },
    db,
  );

beforeAll(async () => {
  db = await freshDatabase();
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-secrets-'));
  t = await start();
});
afterAll(async () => {
  await t?.stop();
  await db?.drop();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('secrets', () => {
  it('are sealed at rest and readable only by admins; never in logs, audit records or readonly answers', async () => {
    const temp = (await t.call('POST', '/api/v1/auth/login', { body: TEMP })).body.access_token;
    const reader = await localUser(t, temp, 'readonly');
    const writer = await t.call('POST', '/api/v1/tokens', { token: temp, body: { name: 'writer', role: 'admin' } });
    const readerToken = await t.call('POST', '/api/v1/tokens', {
      token: temp,
      body: { name: 'reader', role: 'readonly' },
    });

    const put = await t.call('PUT', '/api/v1/secrets/db.password', {
      token: writer.body.token,
      body: { value: VALUE, description: 'database' },
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      name: 'db.password',
      description: 'database',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });

    const [row] = await t.core.db.select().from(secrets).where(eq(secrets.name, 'db.password'));
    expect(row!.sealedValue).not.toContain(VALUE);
    expect(row!.sealedValue).toMatch(/^v2\./);

    const read = await t.call('GET', '/api/v1/secrets/db.password', { token: writer.body.token });
    expect(read.body.value).toBe(VALUE);

    const answers = [
      await t.call('GET', '/api/v1/secrets', { token: reader.token }),
      await t.call('GET', '/api/v1/secrets/db.password', { token: reader.token }),
      await t.call('GET', '/api/v1/secrets/db.password', { token: readerToken.body.token }),
      await t.call('PUT', '/api/v1/secrets/db.password', { token: reader.token, body: { value: VALUE } }),
      await t.call('GET', '/api/v1/settings', { token: reader.token }),
      await t.call('PUT', '/api/v1/secrets/bad name', { token: temp, body: { value: VALUE } }),
      await t.call('PUT', '/api/v1/secrets/x', { token: temp, body: { value: VALUE, unknown: VALUE } }),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 403, 403, 403, 200, 400, 400]);
    for (const a of answers) expect(JSON.stringify(a.body)).not.toContain(VALUE);

    await t.core.audit.flush();
    const records = await t.core.db.select().from(machineTokenAudit);
    expect(records.length).toBeGreaterThan(0);
    expect(JSON.stringify(records)).not.toContain(VALUE);

    const logs = t.logs.join('\n');
    expect(logs).toContain('secret stored');
    expect(logs).not.toContain(VALUE);
    // Nor any credential.
    for (const secret of [temp, reader.token, reader.refresh, writer.body.token, readerToken.body.token, TEMP.password])
      expect(logs).not.toContain(secret);
  });

  it('names are validated and a missing secret is 404', async () => {
    const temp = (await t.call('POST', '/api/v1/auth/login', { body: TEMP })).body.access_token;
    const bad = await t.call('PUT', `/api/v1/secrets/${'x'.repeat(129)}`, { token: temp, body: { value: 'v' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/^Invalid input: name:/);
    expect((await t.call('GET', '/api/v1/secrets/missing', { token: temp })).status).toBe(404);
    expect((await t.call('DELETE', '/api/v1/secrets/missing', { token: temp })).status).toBe(404);
    expect((await t.call('PUT', '/api/v1/secrets/novalue', { token: temp, body: {} })).body.message).toMatch(
      /^Invalid input: value:/,
    );
  });

  it('survive a restart with the generated master secret', async () => {
    const [master] = await t.core.db.select().from(settings).where(eq(settings.key, 'master_secret'));
    expect(master).toBeUndefined(); // never in the database
    if (!db.databaseUrl) {
      const file = path.join(dataDir, 'master-secret');
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(file, 'utf8').trim()).toMatch(/^[\w-]{43}$/);
    }
    await t.stop();
    t = await start();
    const temp = (await t.call('POST', '/api/v1/auth/login', { body: TEMP })).body.access_token;
    const read = await t.call('GET', '/api/v1/secrets/db.password', { token: temp });
    expect(read.status).toBe(200);
    expect(read.body.value).toBe(VALUE);
  });
});

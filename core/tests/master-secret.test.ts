/**
 * Where Core's master secret lives and what a wrong one does (in-process, on a real database: PGlite in a data
 * folder, or PostgreSQL with CORE_TEST_DATABASE_URL): values sealed v2 and v1 rows re-sealed at start, the
 * generated secret in a 0600 file and never in the database (an earlier install's row moves out), a wrong
 * secret refused with what to do, rotation in one transaction. The start refusals run as processes
 * (secrets-at-rest-process.test.ts).
 */
import { CLI_ACTOR } from '../src/domain/activity';
import { createCipheriv, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { createCoreContext, type CoreContext } from '../src/context';
import { hubConnection } from '../src/db/hubSchema';
import { secrets, settings } from '../src/db/schema';
import { rotateMasterSecret, sealedFields } from '../src/domain/crypto';
import { putSecret, readSecret } from '../src/domain/secrets';
import { createCoreLogger } from '../src/log';
import { filesHolding } from '@shared/seal/master';
import { seedDataFolder } from '../../scripts/test-databases';
import { freshDatabase, testConfig } from './helpers';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A database that survives closing: a fresh PostgreSQL database, or PGlite in a new data folder. */
async function place(opts: { embedded?: boolean } = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-master-'));
  cleanups.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
  const db = opts.embedded ? { databaseUrl: null, drop: async () => {} } : await freshDatabase();
  cleanups.push(() => db.drop());
  if (!db.databaseUrl) seedDataFolder(path.join(dataDir, 'pgdata'), process.env.CORE_TEST_PGLITE_SNAPSHOT);
  return { dataDir, databaseUrl: db.databaseUrl };
}

async function open(
  where: { dataDir: string; databaseUrl: string | null },
  secret: string | null,
): Promise<CoreContext> {
  const core = await createCoreContext(
    testConfig({ dataDir: where.databaseUrl ? null : where.dataDir, databaseUrl: where.databaseUrl, secret }),
    createCoreLogger('error', () => {}),
  );
  return core;
}

const SECRET_A = 'core-master-secret-A-0123456789abcdef0123';
const SECRET_B = 'core-master-secret-B-0123456789abcdef0123';

/** v1 as earlier Core versions sealed: AES-256-GCM under the purpose's key, no associated data. */
function sealV1(core: CoreContext, purpose: string, plaintext: string) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', core.sealer.key(purpose), iv);
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', ...[iv, cipher.getAuthTag(), data].map((p) => p.toString('base64url'))].join('.');
}

describe('sealed values', () => {
  it('are v2 bound to their row; v1 rows of earlier versions are re-sealed at start and still open', async () => {
    const where = await place();
    let core = await open(where, SECRET_A);
    await putSecret(core.db, core.sealer, 'db.password', { value: 'pw-1' }, CLI_ACTOR);
    const [row] = await core.db.select().from(secrets).where(eq(secrets.name, 'db.password'));
    expect(row!.sealedValue).toMatch(/^v2\./);
    // A value copied to another secret's row does not open there.
    await putSecret(core.db, core.sealer, 'other', { value: 'pw-2' }, CLI_ACTOR);
    await core.db.update(secrets).set({ sealedValue: row!.sealedValue }).where(eq(secrets.name, 'other'));
    await expect(readSecret(core.db, core.sealer, 'other')).rejects.toThrow();

    // Rows as an earlier Core wrote them.
    await core.db
      .update(secrets)
      .set({ sealedValue: sealV1(core, 'secret:db.password', 'legacy-pw') })
      .where(eq(secrets.name, 'db.password'));
    await core.db.insert(hubConnection).values({
      id: 'hub',
      hubUrl: 'https://hub.example',
      keyPrefix: 'svh_k',
      sealedKey: sealV1(core, 'hub_instance_key', 'svh_legacy'),
    });
    const [key] = await core.db.select().from(settings).where(eq(settings.key, 'session_signing_key'));
    const jwk = core.sealer.open(sealedFields.sessionSigningKey(), key!.value);
    await core.db
      .update(settings)
      .set({ value: sealV1(core, 'session_signing_key', jwk) })
      .where(eq(settings.key, 'session_signing_key'));
    const kid = core.signingKey.kid;
    await core.close();

    core = await open(where, SECRET_A);
    cleanups.push(() => core.close());
    const [secretRow] = await core.db.select().from(secrets).where(eq(secrets.name, 'db.password'));
    const [hubRow] = await core.db.select().from(hubConnection);
    const [keyRow] = await core.db.select().from(settings).where(eq(settings.key, 'session_signing_key'));
    for (const v of [secretRow!.sealedValue, hubRow!.sealedKey!, keyRow!.value]) expect(v).toMatch(/^v2\./);
    expect((await readSecret(core.db, core.sealer, 'db.password')).value).toBe('legacy-pw');
    expect(core.sealer.open(sealedFields.hubInstanceKey('hub'), hubRow!.sealedKey!)).toBe('svh_legacy');
    expect(core.signingKey.kid).toBe(kid);
  });
});

describe('the master secret', () => {
  it('embedded without CORE_SECRET: generated into a 0600 file in the data folder, never into the database', async () => {
    const where = await place({ embedded: true });
    let core = await open(where, null);
    await putSecret(core.db, core.sealer, 'x', { value: 'generated-secret-value' }, CLI_ACTOR);
    const file = path.join(where.dataDir, 'master-secret');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect((await core.db.select().from(settings)).map((s) => s.key).sort()).not.toContain('master_secret');
    await core.close();
    core = await open(where, null);
    cleanups.push(() => core.close());
    expect((await readSecret(core.db, core.sealer, 'x')).value).toBe('generated-secret-value');
  });

  it('an earlier install that kept its generated secret in core_settings: it moves to the file and leaves the database', async () => {
    const where = await place({ embedded: true });
    let core = await open(where, null);
    await putSecret(core.db, core.sealer, 'x', { value: 'kept-across-the-move' }, CLI_ACTOR);
    const file = path.join(where.dataDir, 'master-secret');
    const generated = fs.readFileSync(file, 'utf8').trim();
    // As an earlier Core left it: the secret in the table, no file, no seal check.
    await core.db.insert(settings).values({ key: 'master_secret', value: generated });
    await core.db.delete(settings).where(eq(settings.key, 'seal_check'));
    await core.close();
    fs.rmSync(file);

    core = await open(where, null);
    cleanups.push(() => core.close());
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(generated);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    const keys = (await core.db.select().from(settings)).map((s) => s.key);
    expect(keys).not.toContain('master_secret');
    expect(keys).toContain('seal_check');
    // Nor does any other file of the folder hold it: the table's pages and the write-ahead log were rewritten.
    expect(filesHolding(where.dataDir, generated)).toEqual([]);
    expect((await readSecret(core.db, core.sealer, 'x')).value).toBe('kept-across-the-move');
  });

  it('a wrong CORE_SECRET is refused at start with the date the database was first sealed and what to do', async () => {
    const where = await place();
    const core = await open(where, SECRET_A);
    const [check] = await core.db.select().from(settings).where(eq(settings.key, 'seal_check'));
    const firstSealed = (JSON.parse(check!.value) as { first_sealed: string }).first_sealed.slice(0, 10);
    await core.close();
    await expect(open(where, SECRET_B)).rejects.toThrow(
      `CORE_SECRET does not match the secret this database was sealed with (first sealed ${firstSealed}); ` +
        'start with the original secret, or see README: rotating the master secret',
    );
  });

  it('a database sealed before seal checks existed: a wrong secret is still refused (its session key does not open)', async () => {
    const where = await place();
    const core = await open(where, SECRET_A);
    await core.db.delete(settings).where(eq(settings.key, 'seal_check'));
    await core.close();
    await expect(open(where, SECRET_B)).rejects.toThrow(
      /^CORE_SECRET does not match the secret this database was sealed with \(first sealed \d{4}-\d\d-\d\d\)/,
    );
    const again = await open(where, SECRET_A); // the right one still opens it, and records the check
    cleanups.push(() => again.close());
    expect((await again.db.select().from(settings).where(eq(settings.key, 'seal_check'))).length).toBe(1);
  });
});

describe('rotation', () => {
  it('re-seals every value under the new CORE_SECRET in one transaction; the old one is refused afterwards', async () => {
    const where = await place();
    let core = await open(where, SECRET_A);
    await putSecret(core.db, core.sealer, 'db.password', { value: 'survives-rotation' }, CLI_ACTOR);
    await core.db.insert(hubConnection).values({
      id: 'hub',
      hubUrl: 'https://hub.example',
      keyPrefix: 'svh_k',
      sealedKey: core.sealer.seal(sealedFields.hubInstanceKey('hub'), 'svh_k'),
    });
    const kid = core.signingKey.kid;
    await expect(rotateMasterSecret(core.db, core.masterSecret, 'short')).rejects.toThrow(/at least 32 characters/);
    const result = await rotateMasterSecret(core.db, core.masterSecret, SECRET_B);
    expect(result).toEqual({ resealed: 3, secretFile: null });
    await core.close();

    await expect(open(where, SECRET_A)).rejects.toThrow(/^CORE_SECRET does not match/);
    core = await open(where, SECRET_B);
    cleanups.push(() => core.close());
    expect((await readSecret(core.db, core.sealer, 'db.password')).value).toBe('survives-rotation');
    const [hubRow] = await core.db.select().from(hubConnection);
    expect(core.sealer.open(sealedFields.hubInstanceKey('hub'), hubRow!.sealedKey!)).toBe('svh_k');
    expect(core.signingKey.kid).toBe(kid); // sessions signed before the rotation stay valid
  });

  it('a rotation that fails half-way changes nothing', async () => {
    const where = await place();
    let core = await open(where, SECRET_A);
    await putSecret(core.db, core.sealer, 'a', { value: 'va' }, CLI_ACTOR);
    await putSecret(core.db, core.sealer, 'b', { value: 'vb' }, CLI_ACTOR);
    // A damaged row: the rotation cannot open it and must roll back the rows it already re-sealed.
    await core.db.update(secrets).set({ sealedValue: 'v2.AAAA.AAAA.AAAA' }).where(eq(secrets.name, 'b'));
    const before = await core.db.select().from(secrets);
    await expect(rotateMasterSecret(core.db, core.masterSecret, SECRET_B)).rejects.toThrow();
    expect(await core.db.select().from(secrets)).toEqual(before);
    await core.close();
    core = await open(where, SECRET_A);
    cleanups.push(() => core.close());
    expect((await readSecret(core.db, core.sealer, 'a')).value).toBe('va');
  });

  it('embedded with the generated secret: the file is replaced by the new secret', async () => {
    const where = await place({ embedded: true });
    let core = await open(where, null);
    await putSecret(core.db, core.sealer, 'x', { value: 'v' }, CLI_ACTOR);
    const result = await rotateMasterSecret(core.db, core.masterSecret, SECRET_B);
    const file = path.join(where.dataDir, 'master-secret');
    expect(result.secretFile).toBe(file);
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(SECRET_B);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(where.dataDir)).not.toContain('master-secret.next');
    await core.close();
    core = await open(where, null);
    cleanups.push(() => core.close());
    expect((await readSecret(core.db, core.sealer, 'x')).value).toBe('v');
  });
});

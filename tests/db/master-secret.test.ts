/**
 * Where the Hub's master secret lives and what a wrong one does, in-process on the embedded database in a data
 * folder: the generated secret in a 0600 file and never in the database (an earlier install's row moves out), a
 * wrong secret refused at start with what to do, rotation in one transaction. The start refusals as processes:
 * secrets-at-rest-process.test.ts.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { closeDatabase, getDb } from '../../server/db/client';
import { hubSettings, signingKeys } from '../../server/db/schema';
import { activeSealer, rotateMasterSecret, sealedFields } from '../../server/db/sealed';
import { seedDataFolder } from '../../scripts/test-databases';
import { reloadConfig } from '../../server/config';

const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-master-'));
let dataDir: string;
const saved = {
  DATABASE_URL: process.env.DATABASE_URL,
  HUB_SECRET: process.env.HUB_SECRET,
  HUB_DATA_DIR: process.env.HUB_DATA_DIR,
};

beforeEach(async () => {
  await closeDatabase();
  dataDir = fs.mkdtempSync(path.join(parent, 'data-'));
  seedDataFolder(dataDir, process.env.HUB_TEST_PGLITE_SNAPSHOT);
  process.env.DATABASE_URL = '';
  delete process.env.HUB_SECRET;
  process.env.HUB_DATA_DIR = dataDir;
  reloadConfig();
});
afterAll(async () => {
  await closeDatabase();
  Object.assign(process.env, saved);
  if (saved.HUB_SECRET === undefined) delete process.env.HUB_SECRET;
  fs.rmSync(parent, { recursive: true, force: true });
});

const reopen = async () => {
  await closeDatabase();
  return getDb();
};
const SECRET_A = 'hub-master-secret-A-0123456789abcdef0123';
const SECRET_B = 'hub-master-secret-B-0123456789abcdef0123';

/** A sealed signing key row (what prepareSealing verifies an old database with), and reading it back. */
async function plantKey(kid: string, value: string) {
  const db = await getDb();
  await db.insert(signingKeys).values({
    kid,
    alg: 'ES256',
    publicJwk: {},
    privateJwkEnc: activeSealer().seal(sealedFields.jwtSigningKey(kid), value),
  });
}
async function readKey(kid: string) {
  const db = await getDb();
  const [row] = await db.select().from(signingKeys).where(eq(signingKeys.kid, kid));
  return activeSealer().open(sealedFields.jwtSigningKey(kid), row!.privateJwkEnc);
}
const settingKeys = async () => (await (await getDb()).select().from(hubSettings)).map((s) => s.key);

describe('the master secret on the embedded database', () => {
  it('is generated into a 0600 file in the data folder, never into the database, and reused', async () => {
    await getDb();
    await plantKey('k1', 'private-1');
    const file = path.join(dataDir, 'master-secret');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(await settingKeys()).not.toContain('master_secret');
    await reopen();
    expect(await readKey('k1')).toBe('private-1');
  });

  it('an earlier install that kept it in hub_settings: it moves to the file and leaves the database', async () => {
    const db = await getDb();
    await plantKey('k1', 'private-1');
    const file = path.join(dataDir, 'master-secret');
    const generated = fs.readFileSync(file, 'utf8').trim();
    await db.insert(hubSettings).values({ key: 'master_secret', value: generated });
    await db.delete(hubSettings).where(eq(hubSettings.key, 'seal_check'));
    await closeDatabase();
    fs.rmSync(file);

    await getDb();
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(generated);
    const keys = await settingKeys();
    expect(keys).not.toContain('master_secret');
    expect(keys).toContain('seal_check');
    expect(await readKey('k1')).toBe('private-1');
  });

  it('a wrong HUB_SECRET is refused at start with the date of first sealing and what to do', async () => {
    process.env.HUB_SECRET = SECRET_A;
    reloadConfig();
    await getDb();
    await plantKey('k1', 'private-1');
    await closeDatabase();
    process.env.HUB_SECRET = SECRET_B;
    reloadConfig();
    const today = new Date().toISOString().slice(0, 10);
    await expect(getDb()).rejects.toThrow(
      `HUB_SECRET does not match the secret this database was sealed with (first sealed ${today}); ` +
        'start with the original secret, or see README: rotating the master secret',
    );
  });

  it('a database sealed before seal checks existed: its oldest signing key tells a wrong secret', async () => {
    process.env.HUB_SECRET = SECRET_A;
    reloadConfig();
    const db = await getDb();
    await plantKey('k1', 'private-1');
    await db.delete(hubSettings).where(eq(hubSettings.key, 'seal_check'));
    await closeDatabase();
    process.env.HUB_SECRET = SECRET_B;
    reloadConfig();
    await expect(getDb()).rejects.toThrow(
      /^HUB_SECRET does not match the secret this database was sealed with \(first sealed/,
    );
    process.env.HUB_SECRET = SECRET_A;
    reloadConfig();
    await getDb();
    expect(await settingKeys()).toContain('seal_check');
  });
});

describe('rotation', () => {
  it('re-seals every value under the new secret and replaces the generated file; the old secret no longer opens', async () => {
    const db = await getDb();
    await plantKey('k1', 'private-1');
    await plantKey('k2', 'private-2');
    const file = path.join(dataDir, 'master-secret');
    const old = fs.readFileSync(file, 'utf8').trim();
    await expect(rotateMasterSecret(db, 'too-short')).rejects.toThrow(/at least 32 characters/);
    await expect(rotateMasterSecret(db, old)).rejects.toThrow(/is the one in use/);
    expect(await rotateMasterSecret(db, SECRET_B)).toEqual({ resealed: 2, secretFile: file });
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(SECRET_B);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dataDir)).not.toContain('master-secret.next');
    expect(await readKey('k2')).toBe('private-2');

    await reopen();
    expect(await readKey('k1')).toBe('private-1');
    await closeDatabase();
    process.env.HUB_SECRET = old;
    reloadConfig();
    await expect(getDb()).rejects.toThrow(/^HUB_SECRET does not match/);
  });

  it('changes nothing when a value does not open half-way', async () => {
    const db = await getDb();
    await plantKey('a', 'private-a');
    await db.insert(signingKeys).values({ kid: 'z', alg: 'ES256', publicJwk: {}, privateJwkEnc: 'v2.AAAA.AAAA.AAAA' });
    const before = await db.select().from(signingKeys);
    const file = path.join(dataDir, 'master-secret');
    const old = fs.readFileSync(file, 'utf8');
    await expect(rotateMasterSecret(db, SECRET_B)).rejects.toThrow();
    expect(await db.select().from(signingKeys)).toEqual(before);
    expect(fs.readFileSync(file, 'utf8')).toBe(old);
    expect(fs.readdirSync(dataDir)).not.toContain('master-secret.next');
  });

  it('a rotation stopped between its commit and the file rename: the next start uses the staged secret', async () => {
    const db = await getDb();
    await plantKey('k1', 'private-1');
    const file = path.join(dataDir, 'master-secret');
    const old = fs.readFileSync(file, 'utf8');
    await rotateMasterSecret(db, SECRET_B);
    await closeDatabase();
    // As if the process died after the commit: the new secret still staged, the old one in place.
    fs.renameSync(file, `${file}.next`);
    fs.writeFileSync(file, old, { mode: 0o600 });
    await getDb();
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(SECRET_B);
    expect(fs.existsSync(`${file}.next`)).toBe(false);
    expect(await readKey('k1')).toBe('private-1');
  });
});

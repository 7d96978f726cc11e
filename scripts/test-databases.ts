/**
 * The one migrated database a test run's files copy instead of each migrating its own (both services'
 * vitest global setups: tests/global-setup.ts, core/tests/global-setup.ts):
 *  - on PostgreSQL, a template database (CREATE DATABASE … TEMPLATE makes each file's copy);
 *  - on embedded PGlite, a tarball of a migrated data directory, kept in the system's temporary folder under a
 *    name that hashes the migrations and PGlite's version: made once, reused by every run until either changes.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Extensions } from '@electric-sql/pglite';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Migrations {
  /** The drizzle migrations folder. */
  folder: string;
  /** Names the snapshot file and the template database: `<prefix>-pglite-<hash>.tar`, `<prefix>_template_…`. */
  prefix: string;
}

export async function migratedPgliteSnapshot({ folder, prefix }: Migrations, extensions?: Extensions): Promise<string> {
  const hash = createHash('sha256');
  const pglite = path.join(ROOT, 'node_modules/@electric-sql/pglite/package.json');
  hash.update(JSON.parse(fs.readFileSync(pglite, 'utf8')).version);
  for (const file of fs.readdirSync(folder, { recursive: true }).map(String).sort()) {
    const full = path.join(folder, file);
    if (fs.statSync(full).isFile()) hash.update(file).update(fs.readFileSync(full));
  }
  const file = path.join(os.tmpdir(), `${prefix}-pglite-${hash.digest('hex').slice(0, 16)}.tar`);
  if (fs.existsSync(file)) return file;
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const { migrate } = await import('drizzle-orm/pglite/migrator');
  const client = await PGlite.create({ extensions });
  await migrate(drizzle(client), { migrationsFolder: folder });
  const dump = await client.dumpDataDir('none');
  await client.close();
  // Written under a temporary name and renamed: a run starting meanwhile never reads half a snapshot.
  const temporary = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, Buffer.from(await dump.arrayBuffer()));
  fs.renameSync(temporary, file);
  return file;
}

/**
 * Fills a data folder's database directory with the migrated snapshot, owner-only as the services leave it:
 * for tests about what a data folder holds beside its database (the master secret file, its rotation, a
 * wrong secret), which would otherwise pay initdb and every migration (~4 s of CPU) per folder. Tests about
 * creating a data folder start from an empty one. Without a snapshot (none made) the folder stays empty.
 */
export function seedDataFolder(databaseDir: string, snapshot: string | undefined) {
  if (!snapshot) return;
  fs.mkdirSync(databaseDir, { recursive: true, mode: 0o700 });
  for (const [command, ...args] of [
    ['tar', '-xf', snapshot, '-C', databaseDir, '--no-same-owner'],
    ['chmod', '-R', 'go=', databaseDir],
  ] as const) {
    const done = spawnSync(command, args, { encoding: 'utf8' });
    if (done.status !== 0) throw new Error(`${command} ${args.join(' ')}: ${done.stderr || done.error}`);
  }
}

/**
 * Runs one statement on a data folder's database in the test's own process, once the service or CLI that used the
 * folder has exited (a folder has one user at a time); cheaper than a process that loads the service's modules.
 */
export async function queryDataFolder<Row>(databaseDir: string, sql: string, extensions?: Extensions): Promise<Row[]> {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = new PGlite(databaseDir, { extensions });
  try {
    return (await db.query<Row>(sql)).rows;
  } finally {
    await db.close();
  }
}

export async function migratedTemplateDatabase(serverUrl: string, { folder, prefix }: Migrations) {
  const { default: postgres } = await import('postgres');
  const { drizzle } = await import('drizzle-orm/postgres-js');
  const { migrate } = await import('drizzle-orm/postgres-js/migrator');
  const name = `${prefix}_template_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const client = postgres(url.toString(), { max: 1, onnotice: () => {} });
  await migrate(drizzle(client), { migrationsFolder: folder });
  await client.end(); // CREATE DATABASE … TEMPLATE needs the template without connections
  return {
    name,
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/**
 * The master secret of a service and its life cycle, the same in the Hub and Core (each gives a small store
 * over its own tables):
 * - where it comes from: the environment variable (required with a database server), else, on an embedded
 *   database in a data folder, a generated secret in the folder's `master-secret` file (0600), never in the
 *   database; earlier versions kept it in a settings row, which moves to the file and leaves the database;
 * - a seal check verified at start: a wrong secret is refused with what to do (MasterSecretMismatch);
 * - v1 values re-sealed as v2 at start; rotation re-seals every value under a new secret in one transaction.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readSecretFile, writeSecretFile } from '@shared/data-folder';
import {
  createSealCheck,
  createSealer,
  generateMasterSecret,
  HOW_TO_MAKE_A_SECRET,
  isLegacy,
  MasterSecretMismatch,
  reseal,
  UnsealError,
  verifySealCheck,
  type SealedField,
  type Sealer,
} from './index';

/** The generated master secret's file in the data folder. */
export const MASTER_SECRET_FILE = 'master-secret';
/** The smallest master secret `secret rotate` accepts (openssl rand -base64 32 gives 44 characters). */
export const MIN_SECRET_LENGTH = 32;

/** One sealed value in the database, locked for update by the transaction that listed it. */
export interface StoredValue {
  field: SealedField;
  sealed: string;
  write(sealed: string): Promise<void>;
}

/** A service's sealed rows and settings, inside one transaction. */
export interface SealTx {
  /** Every sealed value, locked for update. */
  sealedValues(): Promise<StoredValue[]>;
  /** A value that tells a wrong secret on a database sealed before seal checks, and when it was sealed. */
  probe(): Promise<{ field: SealedField; sealed: string; at: Date } | undefined>;
  putSealCheck(value: string): Promise<void>;
  deleteLegacySecret(): Promise<void>;
}

export interface SealStore {
  /** A master secret an earlier version kept in the database. */
  legacySecret(): Promise<string | undefined>;
  sealCheck(): Promise<string | undefined>;
  transaction<T>(work: (tx: SealTx) => Promise<T>): Promise<T>;
  /**
   * After the legacy secret's row is deleted: rewrite its table (VACUUM FULL) and run WAL_PURGE_STATEMENTS, so
   * that no file of the data folder holds the secret any more (openMasterSecret verifies it).
   */
  compact?(): Promise<void>;
}

export interface MasterSecretOptions {
  /** HKDF salt of the service's keys ("hub", "core"): never changes, or stored values no longer open. */
  domain: string;
  /** The environment variable and its value (undefined or '' when unset). */
  secretVar: string;
  secret: string | undefined | null;
  /** Where the database is: a server (the secret must come from the environment), or embedded (dataDir or memory). */
  site: { kind: 'server'; refusal: string } | { kind: 'embedded'; dataDir?: string | null };
  /** How messages name the service ("Hub", "Core"). */
  service: string;
  /** Its settings table (named in messages). */
  table: string;
}

export interface MasterSecret {
  sealer: Sealer;
  value: string;
  /** How messages name it: "HUB_SECRET", "the master secret in <file> (or HUB_SECRET)". */
  name: string;
  /** The data folder's file, when the secret is the generated one. */
  file?: string;
  domain: string;
}

/**
 * One transaction that leaves no write-ahead log segment older than now (embedded PGlite, where the backend runs its
 * own checkpoints): without recycling, a checkpoint whose redo point is in a new segment deletes the older ones,
 * which still hold a deleted row's values (a recycled segment would be renamed with its old bytes in it). Twice:
 * the first checkpoint may start in the segment the switch just ended.
 */
export const WAL_PURGE_STATEMENTS = [
  'set local wal_recycle = off',
  'checkpoint',
  'select pg_switch_wal()',
  'checkpoint',
  'select pg_switch_wal()',
  'checkpoint',
] as const;

/** In the data folder from the moment the legacy row is deleted until no file there holds it (survives a crash). */
export const PURGE_PENDING_FILE = 'master-secret.purge-pending';

/** The files under `dir` whose bytes contain `value`, but the master secret's own files (relative paths). */
export function filesHolding(dir: string, value: string): string[] {
  const needle = Buffer.from(value, 'utf8');
  const found: string[] = [];
  const visit = (p: string) => {
    const st = fs.lstatSync(p, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) for (const e of fs.readdirSync(p)) visit(path.join(p, e));
    else if (st.isFile() && !path.basename(p).startsWith(MASTER_SECRET_FILE) && fs.readFileSync(p).includes(needle))
      found.push(path.relative(dir, p));
  };
  visit(dir);
  return found;
}

/** The folder still holds the master secret an earlier version kept in the database: the service does not start. */
export class LegacySecretNotPurged extends Error {}

/** The database server has no master secret in the environment. */
export class MasterSecretRequired extends Error {}

const staged = (file: string) => `${file}.next`;

function opens(sealer: Sealer, check: string | undefined) {
  if (!check) return false;
  try {
    verifySealCheck(sealer, check, '');
    return true;
  } catch {
    return false;
  }
}

function locate(o: MasterSecretOptions, legacy: string | undefined): Omit<MasterSecret, 'sealer' | 'domain'> {
  if (o.secret) return { value: o.secret, name: o.secretVar };
  if (o.site.kind === 'server') throw new MasterSecretRequired(o.site.refusal);
  if (!o.site.dataDir) return { value: legacy ?? generateMasterSecret(), name: 'the generated master secret' };
  const file = path.join(o.site.dataDir, MASTER_SECRET_FILE);
  let value = readSecretFile(file);
  if (value === null) {
    value = legacy ?? generateMasterSecret();
    writeSecretFile(file, value);
  }
  return { value, name: `the master secret in ${file} (or ${o.secretVar})`, file };
}

/**
 * At start, after migrations: finds the master secret, verifies it against the seal check (or, on a database
 * sealed before seal checks, against the store's probe value), records the check, re-seals v1 values as v2 and
 * removes a master secret an earlier version kept in the database. Throws MasterSecretRequired / MasterSecretMismatch.
 */
export async function openMasterSecret(store: SealStore, o: MasterSecretOptions): Promise<MasterSecret> {
  const legacy = await store.legacySecret();
  const check = await store.sealCheck();
  let found = locate(o, legacy);
  let sealer = createSealer(found.value, o.domain);
  if (found.file && fs.existsSync(staged(found.file))) {
    // A rotation committed its transaction but stopped before renaming the new secret's file into place.
    const next = readSecretFile(staged(found.file))!;
    if (!opens(sealer, check) && opens(createSealer(next, o.domain), check)) {
      fs.renameSync(staged(found.file), found.file);
      found = { ...found, value: next };
      sealer = createSealer(next, o.domain);
    } else {
      fs.rmSync(staged(found.file), { force: true });
    }
  }
  const mismatch = (firstSealed: string | null) => {
    const err = new MasterSecretMismatch(found.name, firstSealed);
    if (legacy && legacy !== found.value) {
      err.message +=
        `. This database still holds the secret an earlier ${o.service} generated (${o.table} 'master_secret'): ` +
        `if the values were sealed with it, start once with ${o.secretVar} set to it`;
    }
    return err;
  };
  if (check) {
    try {
      verifySealCheck(sealer, check, found.name);
    } catch (err) {
      throw err instanceof MasterSecretMismatch ? mismatch(err.firstSealed) : err;
    }
  }
  const dataDir = o.site.kind === 'embedded' ? o.site.dataDir : null;
  const pending = dataDir ? path.join(dataDir, PURGE_PENDING_FILE) : null;
  if (pending && legacy !== undefined) fs.writeFileSync(pending, '', { mode: 0o600 });
  await store.transaction(async (tx) => {
    if (!check) {
      const probe = await tx.probe();
      if (probe) {
        try {
          sealer.open(probe.field, probe.sealed);
        } catch (err) {
          throw err instanceof UnsealError ? mismatch(probe.at.toISOString()) : err;
        }
      }
      await tx.putSealCheck(createSealCheck(sealer, probe?.at ?? new Date()));
    }
    await resealLegacy(tx, sealer);
    if (legacy !== undefined) await tx.deleteLegacySecret();
  });
  if (dataDir && pending && fs.existsSync(pending))
    await purgeLegacySecret(store, o, dataDir, pending, legacy ?? found.value);
  return { ...found, sealer, domain: o.domain };
}

/**
 * The legacy row is deleted: rewrite its table and the write-ahead log (store.compact), then read every file of the
 * folder. Any still holding the value (but master-secret itself): refused, with the files and what to do; the
 * pending file stays, so every start tries again (also after a crash between the row's deletion and the purge).
 */
async function purgeLegacySecret(
  store: SealStore,
  o: MasterSecretOptions,
  dataDir: string,
  pending: string,
  value: string,
) {
  await store.compact?.();
  const left = filesHolding(dataDir, value);
  if (left.length > 0) {
    throw new LegacySecretNotPurged(
      `the master secret an earlier ${o.service} kept in the database (${o.table} 'master_secret') has left it, but ` +
        `${left.length} file${left.length > 1 ? 's' : ''} in ${dataDir} still hold${left.length > 1 ? '' : 's'} it (${left.slice(0, 5).join(', ')}). ` +
        `${o.service} does not start until they are rewritten: stop every process that uses the folder and start ${o.service} again ` +
        `(the rewrite is tried at every start while ${PURGE_PENDING_FILE} exists). If this refusal repeats, keep a copy of the folder ` +
        `for a report; deleting ${path.join(dataDir, PURGE_PENDING_FILE)} starts ${o.service} with the secret left in those files, ` +
        `then rotate it (secret rotate) so that the copy left there no longer opens anything`,
    );
  }
  fs.rmSync(pending, { force: true });
}

/** Re-seals the v1 values as v2, in the caller's transaction; answers how many. */
export async function resealLegacy(tx: SealTx, sealer: Sealer): Promise<number> {
  const legacy = (await tx.sealedValues()).filter((v) => isLegacy(v.sealed));
  for (const v of legacy) await v.write(reseal(sealer, sealer, v.field, v.sealed));
  return legacy.length;
}

/**
 * Re-seals every stored value under `next` in one transaction and records a new seal check. With the generated
 * secret the new secret replaces the data folder's file: staged beside it before the commit, renamed into place
 * after it (a start in between uses whichever one opens the database). With the environment variable, every
 * process of the service must be restarted with the new value.
 */
export async function rotateMasterSecret(store: SealStore, current: MasterSecret, next: string) {
  if (next.length < MIN_SECRET_LENGTH) {
    throw new Error(
      `the new master secret must have at least ${MIN_SECRET_LENGTH} characters; ${HOW_TO_MAKE_A_SECRET}`,
    );
  }
  if (next === current.value) throw new Error('the new master secret is the one in use');
  const to = createSealer(next, current.domain);
  const file = current.file;
  if (file) writeSecretFile(staged(file), next);
  let resealed: number;
  try {
    resealed = await store.transaction(async (tx) => {
      const values = await tx.sealedValues();
      for (const v of values) await v.write(reseal(current.sealer, to, v.field, v.sealed));
      await tx.putSealCheck(createSealCheck(to));
      return values.length;
    });
  } catch (err) {
    if (file) fs.rmSync(staged(file), { force: true });
    throw err;
  }
  if (file) fs.renameSync(staged(file), file);
  return { resealed, secretFile: file ?? null, next: { ...current, sealer: to, value: next } satisfies MasterSecret };
}

/** What `secret rotate` prints: how many values were re-sealed, and the generated file or the variable to set next. */
export function rotationReport(
  result: { resealed: number; secretFile: string | null },
  variable: string,
  service: string,
) {
  return {
    rotated: true,
    resealed: result.resealed,
    ...(result.secretFile
      ? { secret_file: result.secretFile }
      : {
          next_step: `set ${variable} to the new secret and restart every ${service} process: the old secret no longer opens this database`,
        }),
  };
}

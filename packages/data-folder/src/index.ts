/**
 * The data folder of an embedded database (PGlite), shared by the Hub and Core:
 * - one process at a time: PGlite has no lock of its own, and two processes opening one folder corrupt it;
 * - owner-only: the folder holds the database's files (its write-ahead log carries whatever was written in
 *   clear, sealed keys, the generated master secret of older installs) and the master secret file. The process
 *   sets umask 0o077 before it opens the folder (what Node and PGlite's folders are created with: 0600 / 0700),
 *   and the folder is narrowed at start. PGlite 0.5 still creates its data files 0666 whatever the umask
 *   (measured): the folder's own 0700 is what keeps other users out, and its files are narrowed again once the
 *   database is open (restrictDataFolder);
 * - secret files: written 0600, atomically (a rename), never partially.
 * No dependency on either service.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Owner-only creation mask: new files 0600, new folders 0700. */
export const PRIVATE_UMASK = 0o077;

/**
 * Makes every file and folder this process creates from now on owner-only (umask 0o077). Call it before
 * anything writes to a data folder; PGlite honours the umask and nothing else.
 * Answers the mask in force before.
 */
export function usePrivateUmask(): number {
  return process.umask(PRIVATE_UMASK);
}

/** The data folder is locked by another live process. */
export class DataFolderInUse extends Error {
  constructor(
    readonly dir: string,
    readonly holder: number,
    message: string,
    cause?: unknown,
  ) {
    super(message, { cause });
  }
}

function isAlive(pid: number) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface LockOptions {
  /** File name of the lock inside the folder, e.g. "hub.lock". */
  lockFile: string;
  /** The refusal when a live process holds the folder. */
  inUseMessage(dir: string, holder: number): string;
}

/**
 * Creates the folder (0700) if needed and takes its lock: a file holding this process id, created exclusively.
 * A lock of a dead process is taken over. Answers the release (also run at exit).
 */
export function lockDataFolder(dir: string, options: LockOptions): () => void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lockPath = path.join(dir, options.lockFile);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx', 0o600);
      fs.writeSync(fd, String(process.pid));
      fs.closeSync(fd);
      const release = () => {
        process.off('exit', release);
        try {
          if (fs.readFileSync(lockPath, 'utf8') === String(process.pid)) fs.unlinkSync(lockPath);
        } catch {
          /* already gone */
        }
      };
      process.once('exit', release);
      return release;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      let holder = 0;
      try {
        holder = Number(fs.readFileSync(lockPath, 'utf8'));
      } catch {
        /* removed meanwhile: try again */
      }
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new DataFolderInUse(dir, holder, options.inUseMessage(dir, holder), err);
      }
      fs.rmSync(lockPath, { force: true }); // stale lock of a dead process
    }
  }
  throw new Error(`could not lock the data folder ${dir}`);
}

/**
 * Narrows an existing folder to owner-only: the folder and every folder below it 0700 (at most), every file
 * 0600 (at most); sockets and symbolic links are left alone. Answers the paths it changed (relative).
 */
export function restrictDataFolder(dir: string): string[] {
  const changed: string[] = [];
  const visit = (p: string) => {
    const st = fs.lstatSync(p);
    if (st.isSymbolicLink() || st.isSocket()) return;
    const mode = st.mode & 0o777;
    if (mode & 0o077) {
      fs.chmodSync(p, mode & 0o700);
      changed.push(path.relative(dir, p) || '.');
    }
    if (st.isDirectory()) for (const entry of fs.readdirSync(p)) visit(path.join(p, entry));
  };
  if (fs.existsSync(dir)) visit(dir);
  return changed;
}

/**
 * Prepares a data folder before the database opens it: owner-only umask for this process, the folder created
 * 0700, an existing one narrowed. `onExposed` hears of a folder that other users could enter (the folder or one
 * below it was group/other accessible): the number of paths changed and a few of them. Loose files inside an
 * owner-only folder (PGlite's, see above) are narrowed without a report.
 */
export function preparePrivateDataFolder(dir: string, onExposed?: (count: number, sample: string[]) => void) {
  usePrivateUmask();
  const folderWasOpen = fs.existsSync(dir) && (fs.statSync(dir).mode & 0o077) !== 0;
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const changed = restrictDataFolder(dir);
  const exposed = folderWasOpen || changed.some((p) => fs.statSync(path.join(dir, p)).isDirectory());
  if (exposed && changed.length > 0) onExposed?.(changed.length, changed.slice(0, 5));
}

/** The content of a secret file (trimmed), or null when there is none. */
export function readSecretFile(file: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  const st = fs.statSync(file);
  if (st.mode & 0o077) fs.chmodSync(file, 0o600);
  const value = text.trim();
  if (!value) throw new Error(`${file} is empty: restore it from a backup, or remove it only if the database is new`);
  return value;
}

/** Writes a secret file 0600, atomically: a temporary file in the same folder, flushed, then renamed over. */
export function writeSecretFile(file: string, value: string) {
  const tmp = `${file}.${process.pid}.tmp`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.fchmodSync(fd, 0o600);
    fs.writeSync(fd, value + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

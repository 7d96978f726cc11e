import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DataFolderInUse, lockDataFolder, readSecretFile, restrictDataFolder, writeSecretFile } from '../src/index';

const INDEX = path.resolve(import.meta.dirname, '../src/index.ts');
const dirs: string[] = [];
const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'data-folder-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});
const mode = (p: string) => fs.statSync(p).mode & 0o777;
const lockOptions = {
  lockFile: 'x.lock',
  inUseMessage: (dir: string, pid: number) => `${dir} is in use by process ${pid}`,
};

/** Runs a script in a new Node process started by a shell with umask 022 (the usual default). */
function underUmask022(script: string) {
  const file = path.join(tmp(), 'script.mts');
  fs.writeFileSync(file, `import * as df from ${JSON.stringify(INDEX)};\n${script}`);
  const result = spawnSync('sh', ['-c', `umask 022 && exec "${process.execPath}" --import tsx "${file}"`], {
    encoding: 'utf8',
  });
  if (result.status !== 0) throw new Error(result.stderr);
  return result.stdout;
}

describe('lockDataFolder', () => {
  it('creates the folder 0700 and refuses a second holder while the first lives', async () => {
    const dir = path.join(tmp(), 'data');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `import(${JSON.stringify(INDEX)}).then((df) => { df.lockDataFolder(${JSON.stringify(dir)}, ` +
          `{ lockFile: 'x.lock', inUseMessage: () => '' }); console.log('locked'); setInterval(() => {}, 1000); })`,
      ],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => d.toString().includes('locked') && resolve());
        child.once('exit', () => reject(new Error('child exited')));
      });
      expect(mode(dir)).toBe(0o700);
      let refusal: unknown;
      try {
        lockDataFolder(dir, lockOptions);
      } catch (err) {
        refusal = err;
      }
      expect(refusal).toBeInstanceOf(DataFolderInUse);
      expect((refusal as DataFolderInUse).holder).toBe(child.pid);
      expect((refusal as Error).message).toBe(`${dir} is in use by process ${child.pid}`);
    } finally {
      child.kill('SIGKILL');
      await new Promise((resolve) => child.once('close', resolve));
    }
    // The holder died without releasing: its lock is stale and taken over.
    const release = lockDataFolder(dir, lockOptions);
    expect(fs.readFileSync(path.join(dir, 'x.lock'), 'utf8')).toBe(String(process.pid));
    expect(mode(path.join(dir, 'x.lock'))).toBe(0o600);
    release();
    expect(fs.existsSync(path.join(dir, 'x.lock'))).toBe(false);
  });
});

describe('permissions', () => {
  it('narrows an existing world-readable folder to owner-only and reports what it changed', () => {
    const dir = tmp();
    fs.chmodSync(dir, 0o755);
    fs.mkdirSync(path.join(dir, 'base'), { mode: 0o755 });
    fs.chmodSync(path.join(dir, 'base'), 0o755);
    fs.writeFileSync(path.join(dir, 'base', 'wal'), 'x');
    fs.chmodSync(path.join(dir, 'base', 'wal'), 0o666);
    fs.writeFileSync(path.join(dir, 'ok'), 'x', { mode: 0o600 });
    fs.chmodSync(path.join(dir, 'ok'), 0o600);
    expect(restrictDataFolder(dir).sort()).toEqual(['.', 'base', path.join('base', 'wal')]);
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, 'base'))).toBe(0o700);
    expect(mode(path.join(dir, 'base', 'wal'))).toBe(0o600);
    expect(restrictDataFolder(dir)).toEqual([]);
  });

  it('under umask 022, a prepared process creates files 0600 and folders 0700', () => {
    const dir = path.join(tmp(), 'data');
    const out = underUmask022(`
      const before = process.umask(); process.umask(before);
      df.preparePrivateDataFolder(${JSON.stringify(dir)});
      const fs = await import('node:fs');
      fs.mkdirSync(${JSON.stringify(path.join(dir, 'sub'))});
      fs.writeFileSync(${JSON.stringify(path.join(dir, 'sub', 'file'))}, 'x');
      console.log(JSON.stringify({ before }));`);
    expect(JSON.parse(out)).toEqual({ before: 0o022 });
    expect(mode(dir)).toBe(0o700);
    expect(mode(path.join(dir, 'sub'))).toBe(0o700);
    expect(mode(path.join(dir, 'sub', 'file'))).toBe(0o600);
  });

  it('without the prepared umask the same process would write 0644 (the test can fail)', () => {
    const dir = tmp();
    underUmask022(`(await import('node:fs')).writeFileSync(${JSON.stringify(path.join(dir, 'f'))}, 'x');`);
    expect(mode(path.join(dir, 'f'))).toBe(0o644);
  });
});

describe('secret files', () => {
  it('writes 0600 atomically and reads the value back', () => {
    const file = path.join(tmp(), 'master-secret');
    expect(readSecretFile(file)).toBeNull();
    writeSecretFile(file, 'abc');
    expect(mode(file)).toBe(0o600);
    expect(readSecretFile(file)).toBe('abc');
    writeSecretFile(file, 'def');
    expect(readSecretFile(file)).toBe('def');
    expect(fs.readdirSync(path.dirname(file))).toEqual(['master-secret']);
  });

  it('narrows a loosened secret file and refuses an empty one', () => {
    const file = path.join(tmp(), 'master-secret');
    fs.writeFileSync(file, 'abc\n');
    fs.chmodSync(file, 0o644);
    expect(readSecretFile(file)).toBe('abc');
    expect(mode(file)).toBe(0o600);
    fs.writeFileSync(file, '\n');
    expect(() => readSecretFile(file)).toThrow(/is empty/);
  });
});

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { createLogger, requestIdFrom, withRequestId } from '../src/index';

function capture(opts: { redact?: boolean } = {}) {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({
    service: 'test',
    level: 'info',
    destination: { write: (l: string) => void lines.push(JSON.parse(l)) },
    ...opts,
  });
  return { log, lines };
}

describe('createLogger', () => {
  it('writes JSON lines with the service, level, message and fields; below the level nothing', () => {
    const { log, lines } = capture();
    log.info({ user_id: 'u1', count: 2 }, 'hello');
    log.debug({ x: 1 }, 'too detailed');
    expect(lines).toEqual([
      expect.objectContaining({
        service: 'test',
        level: 30,
        msg: 'hello',
        user_id: 'u1',
        count: 2,
        time: expect.any(Number),
      }),
    ]);
  });

  it('masks credential-bearing fields at the top level and one level down, keeps ids', () => {
    const { log, lines } = capture();
    log.warn(
      {
        authorization: 'Bearer abc',
        token: 't',
        secret: 's',
        password: 'p',
        cookie: 'c',
        token_id: 'id1',
        req: { authorization: 'Bearer x', token: 'y' },
      },
      'm',
    );
    const line = JSON.stringify(lines[0]);
    for (const leaked of ['Bearer abc', '"t"', '"s"', '"p"', '"c"', 'Bearer x', '"y"'])
      expect(line).not.toContain(leaked);
    expect(lines[0]).toMatchObject({
      authorization: '[redacted]',
      token: '[redacted]',
      password: '[redacted]',
      token_id: 'id1',
      req: { token: '[redacted]' },
    });
  });

  it('redact: false writes fields as given (fixed-field loggers)', () => {
    const { log, lines } = capture({ redact: false });
    log.info({ token: 'visible' }, 'm');
    expect(lines[0]!.token).toBe('visible');
  });
});

describe('request ids', () => {
  it('keeps a sane incoming id, replaces anything else with a UUID', () => {
    expect(requestIdFrom('lb-1234567890')).toBe('lb-1234567890');
    expect(requestIdFrom('a.b_c:d-e0')).toBe('a.b_c:d-e0');
    for (const bad of [
      undefined,
      null,
      '',
      'short',
      'has space 123',
      'x'.repeat(129),
      '<script>alert</script>',
      ['lb-1234567890', 'x'],
    ]) {
      expect(requestIdFrom(bad)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('a request’s child logger puts its id on every line', () => {
    const { log, lines } = capture();
    withRequestId(log, 'req-12345678').info({ a: 1 }, 'one');
    expect(lines[0]).toMatchObject({ requestId: 'req-12345678', a: 1, msg: 'one' });
  });
});

/**
 * The destinations both services log through: pino.destination (sonic-boom) with minLength batching, patched
 * (patches/sonic-boom+*.patch) to keep the byte length of its pending buffer instead of measuring it again on every
 * line. Every line must still arrive once, whole and in order, across buffer boundaries and multi-byte characters.
 */
describe('the batched log destination', () => {
  it('writes every line once, in order, across buffer boundaries and multi-byte characters', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-destination-'));
    const file = path.join(dir, 'out.log');
    const destination = pino.destination({ dest: file, sync: false, minLength: 4096, maxWrite: 5000 });
    const log = createLogger({ service: 'test', level: 'info', destination });
    const sent: string[] = [];
    for (let i = 0; i < 3000; i++) {
      const text = `${i} ${'é€😀'.repeat(i % 37)} ${'x'.repeat(i % 300)}`;
      sent.push(text);
      log.info({ i }, text);
      if (i % 500 === 0) await new Promise((r) => setImmediate(r)); // let writes complete in between
    }
    await new Promise<void>((resolve) => {
      destination.once('close', () => resolve());
      destination.end();
    });
    const lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual(sent);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('flushes gathered lines periodically, and makes no write while nothing is gathered (patched)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'log-destination-'));
    const file = path.join(dir, 'out.log');
    // As the Hub's (server/log.ts): lines gathered up to minLength, written at least every periodicFlush.
    const destination = pino.destination({ dest: file, sync: false, minLength: 4096, periodicFlush: 10 });
    const writes: number[] = [];
    destination.on('write', (n: number) => writes.push(n));
    await new Promise((resolve) => destination.once('ready', resolve));
    const idle = () => new Promise((resolve) => setTimeout(resolve, 120));
    await idle();
    expect(writes).toEqual([]); // before the patch: an empty write every 10 ms
    createLogger({ service: 'test', level: 'info', destination }).info('one line');
    await vi.waitFor(() => expect(writes).toHaveLength(1), { timeout: 2_000 }); // the periodic flush wrote the line
    await idle();
    expect(writes).toHaveLength(1); // and nothing more
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).msg).toBe('one line');
    const flushed = new Promise<void>((resolve, reject) => destination.flush((err) => (err ? reject(err) : resolve())));
    await flushed; // a flush with nothing gathered still calls back
    expect(writes).toHaveLength(1);
    destination.end();
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

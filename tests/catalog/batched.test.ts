/**
 * server/batched.ts: the flushes of batched writes run one at a time, so awaiting one means every earlier batch is
 * stored. Without it a caller's flush (shutdown, a test) could return while a timer's flush still held most of the
 * counts: CI once saw 1 of 1,000 downloads stored after flushDownloads() (tests/catalog/catalog-downloads.test.ts).
 */
import { expect, it } from 'vitest';
import { oneAtATime } from '../../server/batched';

/** A batched writer like the Hub's: each flush takes what is pending; a failed one puts its batch back. */
function batchedWriter(delays: number[], failing: number[] = []) {
  const stored: number[] = [];
  let pending: number[] = [];
  let call = 0;
  const flush = oneAtATime({ flushing: undefined }, async () => {
    const batch = pending;
    pending = [];
    const n = call++;
    await new Promise((r) => setTimeout(r, delays[n] ?? 0));
    if (failing.includes(n)) {
      pending = [...batch, ...pending];
      throw new Error('the database is away');
    }
    stored.push(...batch);
  });
  return { stored, add: (n: number) => pending.push(n), flush };
}

it('a flush starts after the one under way: awaiting it means every earlier batch is stored', async () => {
  const writer = batchedWriter([100, 5]); // the timer's flush is slow, the caller's fast
  writer.add(1);
  const timers = writer.flush();
  writer.add(2);
  await writer.flush();
  expect(writer.stored).toEqual([1, 2]);
  await timers;
});

it('a failed flush does not stop the ones after it', async () => {
  const writer = batchedWriter([20, 0], [0]);
  writer.add(1);
  const failing = writer.flush();
  const next = writer.flush();
  await expect(failing).rejects.toThrow('the database is away');
  await next;
  expect(writer.stored).toEqual([1]);
});

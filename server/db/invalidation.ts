/**
 * Cache invalidation across Hub processes. Each in-process cache is tagged with a topic generation;
 * a change announces its topic inside its transaction (pg_notify, delivered to every process on commit)
 * and bumps this process's generation at once. Listening processes bump theirs when the notification
 * arrives, and bump everything when their listening connection (re)connects, since notifications may
 * have been missed while it was down.
 * It sits with the database layer: the client subscribes to it, the domain announces through it.
 */
import { sql, type SQL } from 'drizzle-orm';

export type Topic = 'catalog' | 'auth';
export const INVALIDATION_CHANNEL = 'hub_invalidate';
const TOPICS: Topic[] = ['catalog', 'auth'];

// On globalThis: Next.js may load this module more than once per process (one copy per bundle).
const state = ((globalThis as { __hubGenerations?: Record<Topic, number> }).__hubGenerations ??= {
  catalog: 0,
  auth: 0,
});

export function generation(topic: Topic): number {
  return state[topic];
}

export function bump(topic: string) {
  if ((TOPICS as string[]).includes(topic)) state[topic as Topic]++;
}

export function bumpAll() {
  for (const topic of TOPICS) state[topic]++;
}

/** Call inside the transaction that makes the change. */
export async function announceChange(tx: { execute(query: SQL): PromiseLike<unknown> }, topic: Topic): Promise<void> {
  await tx.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${topic})`);
  bump(topic);
}

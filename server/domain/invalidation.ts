/**
 * Cache invalidation across Hub processes. Each in-process cache is tagged with a topic generation;
 * a change announces its topic inside its transaction (pg_notify, delivered to every process on commit)
 * and bumps this process's generation at once. Listening processes bump theirs when the notification
 * arrives, and bump everything when their listening connection (re)connects, since notifications may
 * have been missed while it was down.
 */
import { sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';

export type Topic = 'catalog' | 'auth';
export const INVALIDATION_CHANNEL = 'hub_invalidate';
const TOPICS: Topic[] = ['catalog', 'auth'];

// On globalThis: Next.js may load this module more than once per process (one copy per bundle).
const state = ((globalThis as { __hubGenerations?: Record<Topic, number> }).__hubGenerations ??= { catalog: 0, auth: 0 });

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
export async function announceChange(tx: Queryable, topic: Topic): Promise<void> {
  await tx.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${topic})`);
  bump(topic);
}

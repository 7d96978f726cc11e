/** Instance keys (svh_): issued to an organization, re-issued under the same id, revoked. */
import { and, eq, sql } from 'drizzle-orm';
import type { Queryable } from '../db/client';
import { instanceKeys } from '../db/schema';
import { announceChange } from '../db/invalidation';
import { issueSecret } from '@shared/tokens';

export async function createInstanceKey(
  q: Queryable,
  input: { orgId: string; name: string; createdBy?: string | null },
) {
  const issued = issueSecret('svh_');
  const [row] = await q
    .insert(instanceKeys)
    .values({
      orgId: input.orgId,
      name: input.name,
      keyHash: issued.hash,
      keyPrefix: issued.displayPrefix,
      createdBy: input.createdBy ?? null,
    })
    .returning();
  return { key: row!, secret: issued.secret };
}

/** New secret, same id; the old secret stops working with the commit. Null when no such key in the org. */
export async function reissueInstanceKey(q: Queryable, input: { orgId: string; id: string }) {
  const issued = issueSecret('svh_');
  const [row] = await q
    .update(instanceKeys)
    .set({
      keyHash: issued.hash,
      keyPrefix: issued.displayPrefix,
      status: 'active',
      revokedAt: null,
      reissuedAt: sql`now()`,
    })
    .where(and(eq(instanceKeys.id, input.id), eq(instanceKeys.orgId, input.orgId)))
    .returning();
  if (row) await announceChange(q, 'auth'); // cached look-ups of the old secret die now
  return row ? { key: row, secret: issued.secret } : null;
}

/** Null when there is no such key (in that org, when orgId is given). */
export async function revokeInstanceKey(q: Queryable, input: { id: string; orgId?: string }) {
  const [row] = await q
    .update(instanceKeys)
    .set({ status: 'revoked', revokedAt: sql`coalesce(${instanceKeys.revokedAt}, now())` })
    .where(
      input.orgId
        ? and(eq(instanceKeys.id, input.id), eq(instanceKeys.orgId, input.orgId))
        : eq(instanceKeys.id, input.id),
    )
    .returning();
  if (row) await announceChange(q, 'auth');
  return row ?? null;
}

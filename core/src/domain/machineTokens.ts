/**
 * Machine tokens (svm_): role admin or readonly, optional expiry of 1–365 days, shown once (on
 * create and re-issue), revocable for good. Every request made with one is audited (domain/audit).
 */
import { pagination } from '@shared/ops';
import { and, count, desc, eq, lt, or, isNull } from 'drizzle-orm';
import type { Db, Queryable } from '../db/client';
import { machineTokenAudit, machineTokens } from '../db/schema';
import { changed, recordActivity, type Actor } from './activity';
import { ServiceError, notFound, unauthenticated } from './errors';
import { type Page, type Principal } from './principal';
import type { Role } from './roles';
import { hashSecret, issueSecret, parseSecret } from '@shared/tokens';
import { isUuid } from './users';

export const EXPIRY_MIN_DAYS = 1;
export const EXPIRY_MAX_DAYS = 365;
/** last_used_at is written at most once a minute per token, not on every request. */
const LAST_USED_RESOLUTION_MS = 60_000;

type TokenRow = typeof machineTokens.$inferSelect;

function status(t: TokenRow, now = new Date()): 'active' | 'expired' | 'revoked' {
  if (t.revokedAt) return 'revoked';
  if (t.expiresAt && t.expiresAt <= now) return 'expired';
  return 'active';
}

export function publicToken(t: TokenRow) {
  return {
    id: t.id,
    name: t.name,
    role: t.role,
    prefix: t.prefix,
    status: status(t),
    created_at: t.createdAt.toISOString(),
    created_by: t.createdBy,
    expires_at: t.expiresAt?.toISOString() ?? null,
    last_used_at: t.lastUsedAt?.toISOString() ?? null,
  };
}

const expiryFrom = (days: number | null) => (days === null ? null : new Date(Date.now() + days * 86_400_000));

/** What the activity log shows of a token (never its secret or hash). */
const described = (t: TokenRow) => ({
  name: t.name,
  role: t.role,
  prefix: t.prefix,
  status: status(t),
  expires_at: t.expiresAt?.toISOString() ?? null,
});

export async function createMachineToken(
  db: Db,
  input: { name: string; role: Role; expiresInDays: number | null; createdBy: string },
  actor: Actor,
) {
  const days = input.expiresInDays;
  if (days !== null && (!Number.isInteger(days) || days < EXPIRY_MIN_DAYS || days > EXPIRY_MAX_DAYS)) {
    throw new ServiceError(
      'invalid',
      `expires_in_days: must be an integer from ${EXPIRY_MIN_DAYS} to ${EXPIRY_MAX_DAYS}, or null for no expiry`,
    );
  }
  const issued = issueSecret('svm_');
  const row = await db.transaction(async (tx) => {
    const [created] = await tx
      .insert(machineTokens)
      .values({
        name: input.name,
        role: input.role,
        tokenHash: issued.hash,
        prefix: issued.displayPrefix,
        expiresInDays: days,
        expiresAt: expiryFrom(days),
        createdBy: input.createdBy,
      })
      .returning();
    await recordActivity(tx, actor, {
      action: 'machine_token.create',
      target: { type: 'machine_token', id: created!.id, name: created!.name },
      after: described(created!),
    });
    return created!;
  });
  return { ...publicToken(row), token: issued.secret };
}

export async function listMachineTokens(db: Db, page: Page) {
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(machineTokens)
      .orderBy(desc(machineTokens.createdAt), desc(machineTokens.id))
      .limit(page.limit)
      .offset((page.page - 1) * page.limit),
    db.select({ n: count() }).from(machineTokens),
  ]);
  return { tokens: rows.map(publicToken), pagination: pagination(page, total?.n ?? 0) };
}

async function getToken(db: Queryable, id: string) {
  if (!isUuid(id)) throw notFound('machine token');
  const [row] = await db.select().from(machineTokens).where(eq(machineTokens.id, id));
  if (!row) throw notFound('machine token');
  return row;
}

/** A new secret for the same id and role; the old one stops working at once. Expiry restarts. */
export async function reissueMachineToken(db: Db, id: string, actor: Actor) {
  const issued = issueSecret('svm_');
  const row = await db.transaction(async (tx) => {
    const current = await getToken(tx, id);
    const [updated] = await tx
      .update(machineTokens)
      .set({ tokenHash: issued.hash, prefix: issued.displayPrefix, expiresAt: expiryFrom(current.expiresInDays) })
      .where(and(eq(machineTokens.id, id), isNull(machineTokens.revokedAt)))
      .returning();
    if (!updated) throw new ServiceError('conflict', 'a revoked machine token cannot be re-issued; create a new one');
    const diff = changed(described(current), described(updated));
    await recordActivity(tx, actor, {
      action: 'machine_token.reissue',
      target: { type: 'machine_token', id, name: updated.name },
      ...diff,
    });
    return updated;
  });
  return { ...publicToken(row), token: issued.secret };
}

/** Final: a revoked token never works again (its audit stays readable). */
export async function revokeMachineToken(db: Db, id: string, actor: Actor) {
  await db.transaction(async (tx) => {
    const current = await getToken(tx, id);
    const [revoked] = await tx
      .update(machineTokens)
      .set({ revokedAt: new Date() })
      .where(and(eq(machineTokens.id, id), isNull(machineTokens.revokedAt)))
      .returning();
    // Revoking a revoked token changes nothing and records nothing.
    if (revoked) {
      await recordActivity(tx, actor, {
        action: 'machine_token.revoke',
        target: { type: 'machine_token', id, name: revoked.name },
        ...changed(described(current), described(revoked)),
      });
    }
  });
}

export async function listAudit(db: Db, id: string, page: Page) {
  await getToken(db, id);
  const where = eq(machineTokenAudit.tokenId, id);
  const [rows, [total]] = await Promise.all([
    db
      .select()
      .from(machineTokenAudit)
      .where(where)
      .orderBy(desc(machineTokenAudit.at), desc(machineTokenAudit.id))
      .limit(page.limit)
      .offset((page.page - 1) * page.limit),
    db.select({ n: count() }).from(machineTokenAudit).where(where),
  ]);
  return {
    records: rows.map((r) => ({
      id: String(r.id),
      token_id: r.tokenId,
      method: r.method,
      path: r.path,
      status: r.status,
      at: r.at.toISOString(),
    })),
    pagination: pagination(page, total?.n ?? 0),
  };
}

/**
 * The principal behind a machine token. Malformed tokens are refused without a look-up; a known but
 * revoked or expired token is refused with its id attached, so that its request is still audited.
 */
export async function verifyMachineToken(db: Db, token: string): Promise<Principal> {
  if (parseSecret(token) !== 'svm_') throw unauthenticated('malformed machine token');
  const [row] = await db
    .select()
    .from(machineTokens)
    .where(eq(machineTokens.tokenHash, hashSecret(token)));
  if (!row) throw unauthenticated('unknown machine token');
  const state = status(row);
  if (state !== 'active') throw new ServiceError('unauthenticated', `machine token ${state}`, { subject: row.id });
  const now = new Date();
  if (!row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS) {
    await db
      .update(machineTokens)
      .set({ lastUsedAt: now })
      .where(
        and(
          eq(machineTokens.id, row.id),
          or(
            isNull(machineTokens.lastUsedAt),
            lt(machineTokens.lastUsedAt, new Date(now.getTime() - LAST_USED_RESOLUTION_MS)),
          ),
        ),
      );
  }
  return { kind: 'machine_token', role: row.role, tokenId: row.id, name: row.name };
}

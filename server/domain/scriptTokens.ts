/**
 * Script tokens: Hub JWTs issued for scripts and operators (`hub token` on the CLI, the dashboard's API
 * access panel). Each is recorded (id = the JWT's `jti`, owner, label, source, created, expires; never
 * the token) so that its owner can list and revoke it. Browser sessions are Hub JWTs too, but carry no
 * `jti` and are not recorded: sign-out and "sign out everywhere" end them (users.sessions_valid_after).
 *
 * The credential resolver (server/auth/credentials.ts) reads the row in the same statement as the user on
 * every call, so a revocation is refused at once by every Hub process. Personal access tokens minted with a script
 * token end with it (domain/pats.ts); their look-ups are cached, so a revocation announces an 'auth' change.
 */
import { randomUUID } from 'node:crypto';
import { and, desc, eq, lt, sql } from 'drizzle-orm';
import { getDb } from '../db/client';
import { announceChange } from '../db/invalidation';
import { scriptTokens, users } from '../db/schema';
import { writeAudit, type AuditActor } from './audit';
import { ServiceError } from './errors';
import { signScriptJwt } from './jwt';

export type ScriptTokenSource = 'cli' | 'dashboard';
export type ScriptTokenStatus = 'active' | 'expired' | 'revoked' | 'signed_out';

/** Longest lifetime of a script token (like GitLab's and GitHub's expiring tokens): a leaked one dies within a month. */
export const SCRIPT_TOKEN_MAX_TTL_SECONDS = 30 * 86_400;
/** Rows of tokens that expired longer ago than this are dropped when their owner issues a new one. */
const KEEP_EXPIRED_MS = 30 * 86_400_000;
/** The listing shows the newest tokens, up to this many. */
const LIST_LIMIT = 100;

export interface IssuedScriptToken {
  id: string;
  token: string;
  label: string;
  source: ScriptTokenSource;
  createdAt: Date;
  expiresAt: Date;
}

/** Signs a script JWT for the user and records it; the audit entry is written with the row. */
export async function issueScriptToken(opts: {
  userId: string;
  source: ScriptTokenSource;
  label?: string;
  ttlSeconds: number;
  actor: AuditActor;
  orgId?: string | null;
}): Promise<IssuedScriptToken> {
  if (!Number.isInteger(opts.ttlSeconds) || opts.ttlSeconds < 1 || opts.ttlSeconds > SCRIPT_TOKEN_MAX_TTL_SECONDS) {
    throw new ServiceError(
      'invalid',
      `A script token lives from 1 second to ${SCRIPT_TOKEN_MAX_TTL_SECONDS} seconds (30 days)`,
    );
  }
  const id = randomUUID();
  const label =
    (opts.label ?? '').trim().slice(0, 100) || (opts.source === 'cli' ? 'hub token (CLI)' : 'Dashboard API access');
  // Signed before the transaction: signing may read the key ring from the database (PGlite has one connection).
  const { token, expiresAt } = await signScriptJwt(opts.userId, opts.ttlSeconds, id);
  const db = await getDb();
  const row = await db.transaction(async (tx) => {
    await tx
      .delete(scriptTokens)
      .where(
        and(eq(scriptTokens.userId, opts.userId), lt(scriptTokens.expiresAt, new Date(Date.now() - KEEP_EXPIRED_MS))),
      );
    const [inserted] = await tx
      .insert(scriptTokens)
      .values({ id, userId: opts.userId, label, source: opts.source, expiresAt })
      .returning();
    await writeAudit(tx, {
      actor: opts.actor,
      action: 'api_token.issue',
      targetType: 'api_token',
      targetId: id,
      orgId: opts.orgId ?? null,
      details: { label, source: opts.source, ttl_seconds: opts.ttlSeconds, user_id: opts.userId },
    });
    return inserted!;
  });
  return { id, token, label: row.label, source: row.source, createdAt: row.createdAt, expiresAt: row.expiresAt };
}

export interface ScriptTokenView {
  id: string;
  label: string;
  source: ScriptTokenSource;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  status: ScriptTokenStatus;
}

function statusOf(
  row: { expiresAt: Date; revokedAt: Date | null; createdAt: Date },
  validAfter: Date | null,
  now = Date.now(),
): ScriptTokenStatus {
  if (row.revokedAt) return 'revoked';
  if (row.expiresAt.getTime() <= now) return 'expired';
  // Same rule as the resolver: a JWT issued (whole seconds) before the user's last "sign out everywhere".
  if (validAfter && Math.floor(row.createdAt.getTime() / 1000) * 1000 < validAfter.getTime()) return 'signed_out';
  return 'active';
}

/** The user's own script tokens, newest first (never the tokens themselves). */
export async function listScriptTokens(userId: string): Promise<ScriptTokenView[]> {
  const db = await getDb();
  const rows = await db
    .select({
      id: scriptTokens.id,
      label: scriptTokens.label,
      source: scriptTokens.source,
      createdAt: scriptTokens.createdAt,
      expiresAt: scriptTokens.expiresAt,
      lastUsedAt: scriptTokens.lastUsedAt,
      revokedAt: scriptTokens.revokedAt,
      validAfter: users.sessionsValidAfter,
    })
    .from(scriptTokens)
    .innerJoin(users, eq(users.id, scriptTokens.userId))
    .where(eq(scriptTokens.userId, userId))
    .orderBy(desc(scriptTokens.createdAt), desc(scriptTokens.id))
    .limit(LIST_LIMIT);
  return rows.map(({ validAfter, ...row }) => ({ ...row, status: statusOf(row, validAfter) }));
}

/**
 * Revokes one of the user's own script tokens: refused at once everywhere. Another user's token id is
 * answered as unknown (404). Revoking a revoked token changes nothing.
 */
export async function revokeScriptToken(
  actor: AuditActor & { kind: 'user' },
  id: string,
): Promise<{ id: string; revokedAt: Date }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [existing] = await tx
      .select({ id: scriptTokens.id, label: scriptTokens.label, revokedAt: scriptTokens.revokedAt })
      .from(scriptTokens)
      .where(and(eq(scriptTokens.id, id), eq(scriptTokens.userId, actor.userId)));
    if (!existing) throw new ServiceError('not_found', 'No such API token of yours');
    if (existing.revokedAt) return { id, revokedAt: existing.revokedAt };
    const [row] = await tx
      .update(scriptTokens)
      .set({ revokedAt: sql`now()` })
      .where(eq(scriptTokens.id, id))
      .returning({ revokedAt: scriptTokens.revokedAt });
    // The personal access tokens minted with it end too: their cached look-ups die now (auth/credentials.ts).
    await announceChange(tx, 'auth');
    await writeAudit(tx, {
      actor,
      action: 'api_token.revoke',
      targetType: 'api_token',
      targetId: id,
      orgId: actor.orgId,
      details: { label: existing.label },
    });
    return { id, revokedAt: row!.revokedAt! };
  });
}

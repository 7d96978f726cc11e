/**
 * Personal access tokens (svp_): minted by an organization member for one instance of that
 * organization, accepted only by the MCP proxy (/mcp). They carry no role and no permission snapshot:
 * the instance applies its own roles to the person named in the Hub's assertion.
 *
 * Validity is decided on every /mcp call by resolvePat() (server/auth/credentials.ts), never only at mint time:
 *   - well-formed with a valid checksum, and its SHA-256 is a stored token (a rotated-away secret is unknown);
 *   - not revoked, not expired;
 *   - the minter is still a member of the token's organization *in the same membership*:
 *     users.org_id = pat.org_id AND users.org_joined_at = pat.membership_since. Removing the minter kills
 *     the token at once, and re-adding them later does NOT revive it (a new membership has a new
 *     org_joined_at): a person who was removed must mint new tokens after rejoining, so nobody's access
 *     silently returns with an old secret that may have leaked meanwhile;
 *   - the organization is active (suspended → 403 until it is active again);
 *   - the bound instance key is active (revoked → refused; re-issuing the key under the same id restores it,
 *     because the token is bound to the instance, not to the instance's secret).
 * Deleting the minter's account deletes their tokens (ON DELETE CASCADE).
 *
 * A token minted with a script token (a bearer API token from the dashboard or `hub token`, not a browser session)
 * is derived from it (personal_access_tokens.script_token_id): it stops when that script token is revoked, expires or
 * is signed out ("sign out everywhere"), checked on every call like the rules above; its expiry is at most the
 * script token's (a longer one, or none, is capped). Rotating a token with a script token makes it derived from
 * that one the same way. A token minted in a browser session is unaffected.
 */
import { ServiceError, invalid as badRequest, notFound } from './errors';
import { and, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import { getDb, type Queryable, type Tx } from '../db/client';
import { instanceKeys, organizations, personalAccessTokens, scriptTokens, users } from '../db/schema';
import { writeAudit } from './audit';
import { announceChange } from '../db/invalidation';
import type { UserPrincipal } from './principal';
import { issueSecret } from '@shared/tokens';

export const PAT_MAX_EXPIRY_DAYS = 365;
/**
 * Most live (not revoked, not expired) tokens one person may hold for one instance: enough for a handful of
 * assistants and a rotation overlap; with HUB_MCP_MAX_STREAMS_PER_USER it bounds what one account can hold open.
 */
export const PAT_MAX_LIVE_PER_INSTANCE = 10;
const DAY_MS = 86_400_000;

export type PatStatus =
  | 'active'
  | 'expired'
  | 'revoked'
  | 'api_token_ended'
  | 'membership_ended'
  | 'instance_revoked'
  | 'organization_suspended';

// ---------------------------------------------------------------- what /mcp resolves (server/auth/credentials.ts)

export interface ResolvedPat {
  tokenId: string;
  userId: string;
  email: string;
  name: string;
  orgId: string;
  instanceKeyId: string;
  /** The MCP URL the instance reported through PUT /api/v1/instance-info; null when it has not. */
  mcpUrl: string | null;
}

/** Whether the minter still holds the membership the token was minted in (both values compared in SQL, exactly). */
export const sameMembership = sql<boolean>`(${users.orgId} = ${personalAccessTokens.orgId}
  and ${users.orgJoinedAt} is not null and ${users.orgJoinedAt} = ${personalAccessTokens.membershipSince})`;
/**
 * A token minted with a script token (scriptTokenId set) whose script token has ended: its row is gone or revoked,
 * or its user signed out everywhere after it was issued (the resolver's rule for the script JWT: issued, in whole
 * seconds, before sessions_valid_after). Its expiry is compared on each call (the token's own expiry is capped at
 * it anyway). Needs users (the minter) and script_tokens (left join on the token's script_token_id) in the query.
 */
export const apiTokenEnded = sql<boolean>`(${personalAccessTokens.scriptTokenId} is not null
  and (${scriptTokens.id} is null or ${scriptTokens.revokedAt} is not null
    or (${users.sessionsValidAfter} is not null and date_trunc('second', ${scriptTokens.createdAt}) < ${users.sessionsValidAfter})))`;
const isExpired = sql<boolean>`(${personalAccessTokens.expiresAt} is not null and ${personalAccessTokens.expiresAt} <= now())`;

// ---------------------------------------------------------------- management (account API)

export interface PatView {
  id: string;
  name: string;
  tokenPrefix: string;
  instanceId: string;
  instanceName: string;
  userId: string;
  minterEmail: string;
  minterName: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  rotatedAt: Date | null;
  revokedAt: Date | null;
  status: PatStatus;
}

const statusSql = sql<PatStatus>`case
  when ${personalAccessTokens.revokedAt} is not null then 'revoked'
  when ${isExpired} then 'expired'
  when ${apiTokenEnded} or ${scriptTokens.expiresAt} <= now() then 'api_token_ended'
  when not coalesce(${sameMembership}, false) then 'membership_ended'
  when ${instanceKeys.status} <> 'active' then 'instance_revoked'
  when ${organizations.status} <> 'active' then 'organization_suspended'
  else 'active' end`;

function viewQuery(q: Queryable, where: SQL | undefined) {
  return q
    .select({
      id: personalAccessTokens.id,
      name: personalAccessTokens.name,
      tokenPrefix: personalAccessTokens.tokenPrefix,
      instanceId: personalAccessTokens.instanceKeyId,
      instanceName: instanceKeys.name,
      userId: personalAccessTokens.userId,
      minterEmail: users.email,
      minterName: users.name,
      createdAt: personalAccessTokens.createdAt,
      expiresAt: personalAccessTokens.expiresAt,
      lastUsedAt: personalAccessTokens.lastUsedAt,
      rotatedAt: personalAccessTokens.rotatedAt,
      revokedAt: personalAccessTokens.revokedAt,
      status: statusSql,
    })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .innerJoin(organizations, eq(organizations.id, personalAccessTokens.orgId))
    .innerJoin(instanceKeys, eq(instanceKeys.id, personalAccessTokens.instanceKeyId))
    .leftJoin(scriptTokens, eq(scriptTokens.id, personalAccessTokens.scriptTokenId))
    .where(where)
    .orderBy(desc(personalAccessTokens.createdAt), desc(personalAccessTokens.id));
}

/**
 * The caller's own tokens (whatever organization they were minted in); an organization admin also
 * sees every token of their organization.
 */
export async function listPats(user: UserPrincipal): Promise<PatView[]> {
  const db = await getDb();
  const own = eq(personalAccessTokens.userId, user.userId);
  const where = user.orgId && user.orgRole === 'admin' ? or(own, eq(personalAccessTokens.orgId, user.orgId)) : own;
  return viewQuery(db, where);
}

export interface MintInput {
  name: string;
  instanceId: string;
  expiresInDays?: number | null;
}

export interface IssuedPat {
  id: string;
  name: string;
  secret: string;
  instanceId: string;
  expiresAt: Date | null;
}

/** Mints a token for `user` bound to one active instance of the user's organization. */
export async function mintPat(user: UserPrincipal, input: MintInput): Promise<IssuedPat> {
  if (input.expiresInDays != null && (input.expiresInDays < 1 || input.expiresInDays > PAT_MAX_EXPIRY_DAYS)) {
    badRequest(`Invalid input: expires_in_days: must be between 1 and ${PAT_MAX_EXPIRY_DAYS}`);
  }
  const db = await getDb();
  return db.transaction(async (tx) => {
    // The membership is read (and locked) inside the transaction: the principal may be a moment old.
    const [member] = await tx
      .select({ orgId: users.orgId, joinedAt: users.orgJoinedAt })
      .from(users)
      .where(eq(users.id, user.userId))
      .for('update');
    if (!member?.orgId) throw new ServiceError('forbidden', 'You do not belong to an organization');
    const orgId = member.orgId;
    if (!member.joinedAt) {
      // A membership recorded without its start (older data): it starts now, for this and later tokens.
      await tx
        .update(users)
        .set({ orgJoinedAt: sql`now()` })
        .where(eq(users.id, user.userId));
    }
    const [instance] = await tx
      .select({ id: instanceKeys.id, status: instanceKeys.status, name: instanceKeys.name })
      .from(instanceKeys)
      .where(and(eq(instanceKeys.id, input.instanceId), eq(instanceKeys.orgId, orgId)));
    if (!instance) notFound('instance_id: no such instance in your organization');
    if (instance.status !== 'active') badRequest('Invalid input: instance_id: this instance key is revoked');
    // Counted under the lock on the user's row taken above: concurrent mints of one person are serialized.
    const [{ live }] = (await tx
      .select({ live: sql<number>`count(*)::int` })
      .from(personalAccessTokens)
      .innerJoin(users, eq(users.id, personalAccessTokens.userId))
      .where(
        and(
          eq(personalAccessTokens.userId, user.userId),
          eq(personalAccessTokens.instanceKeyId, instance.id),
          sql`${personalAccessTokens.revokedAt} is null`,
          sql`not ${isExpired}`,
          sameMembership,
        ),
      )) as [{ live: number }];
    if (live >= PAT_MAX_LIVE_PER_INSTANCE) {
      throw new ServiceError(
        'conflict',
        `You already have ${PAT_MAX_LIVE_PER_INSTANCE} live personal access tokens for this instance (the most one ` +
          'person may hold); revoke one you no longer use, then mint again',
      );
    }

    // Minted with a script token (a bearer API token): derived from it, so it ends with it and lives no longer.
    const cap = await scriptTokenCap(tx, user);
    const issued = issueSecret('svp_');
    const requested = input.expiresInDays != null ? new Date(Date.now() + input.expiresInDays * DAY_MS) : null;
    // A longer expiry, or none, is capped at the script token's (the answer's expires_at says which).
    const expiresAt = cap && (requested === null || requested > cap) ? cap : requested;
    const [row] = await tx
      .insert(personalAccessTokens)
      .values({
        name: input.name,
        tokenHash: issued.hash,
        tokenPrefix: issued.displayPrefix,
        userId: user.userId,
        orgId,
        instanceKeyId: instance.id,
        // Copied in SQL so that the exact (microsecond) value is compared on every call.
        membershipSince: sql`(select ${users.orgJoinedAt} from ${users} where ${users.id} = ${user.userId})`,
        scriptTokenId: user.scriptTokenId ?? null,
        expiresAt,
      })
      .returning();
    await writeAudit(tx, {
      actor: user,
      action: 'personal_access_token.create',
      targetType: 'personal_access_token',
      targetId: row!.id,
      orgId,
      details: {
        name: input.name,
        instance_id: instance.id,
        instance_name: instance.name,
        expires_at: expiresAt,
        ...(user.scriptTokenId !== undefined && { minted_with_api_token_id: user.scriptTokenId }),
      },
    });
    return { id: row!.id, name: row!.name, secret: issued.secret, instanceId: instance.id, expiresAt: row!.expiresAt };
  });
}

/**
 * The expiry of the live script token the caller used (a secret minted or rotated with it is derived from it), or
 * null for a browser session. A script token revoked or expired meanwhile is refused.
 */
async function scriptTokenCap(tx: Tx, user: UserPrincipal): Promise<Date | null> {
  if (user.scriptTokenId === undefined) return null;
  const [script] = await tx
    .select({ expiresAt: scriptTokens.expiresAt, revokedAt: scriptTokens.revokedAt })
    .from(scriptTokens)
    .where(and(eq(scriptTokens.id, user.scriptTokenId), eq(scriptTokens.userId, user.userId)));
  if (!script || script.revokedAt || script.expiresAt.getTime() <= Date.now())
    throw new ServiceError('unauthenticated', 'The API token of this request has been revoked or has expired', {
      reason: 'api_token_ended',
    });
  return script.expiresAt;
}

/** The token row if it belongs to the caller's current organization (else 404: never reveal other organizations' tokens). */
async function loadInOrg(tx: Tx, user: UserPrincipal, id: string) {
  const [row] = await tx
    .select({
      id: personalAccessTokens.id,
      name: personalAccessTokens.name,
      userId: personalAccessTokens.userId,
      orgId: personalAccessTokens.orgId,
      instanceKeyId: personalAccessTokens.instanceKeyId,
      expiresAt: personalAccessTokens.expiresAt,
      revokedAt: personalAccessTokens.revokedAt,
      expired: isExpired,
      member: sameMembership,
    })
    .from(personalAccessTokens)
    .innerJoin(users, eq(users.id, personalAccessTokens.userId))
    .where(eq(personalAccessTokens.id, id))
    .for('update', { of: personalAccessTokens });
  // The minter always finds their own tokens; others only those of their organization.
  if (!row || (row.userId !== user.userId && row.orgId !== user.orgId))
    notFound(`Personal access token ${id} not found`);
  return row;
}

/** New secret, same id; the old secret stops working with the commit. Only the minter may rotate. */
export async function rotatePat(user: UserPrincipal, id: string): Promise<IssuedPat> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const row = await loadInOrg(tx, user, id);
    if (row.userId !== user.userId) throw new ServiceError('forbidden', 'Only the token’s minter may rotate it');
    if (row.revokedAt) throw new ServiceError('conflict', 'This token is revoked; mint a new one');
    if (row.expired) throw new ServiceError('conflict', 'This token has expired; mint a new one');
    if (!row.member) {
      throw new ServiceError(
        'conflict',
        'This token belongs to an earlier membership of the organization and stays dead; mint a new one',
      );
    }
    // Rotated with a script token, the new secret is derived from it as a minted one would be (it ends with that
    // script token, its expiry capped): otherwise a leaked script token could rotate a token minted in the
    // dashboard and keep a secret that outlives it.
    const cap = await scriptTokenCap(tx, user);
    const derived = cap
      ? { scriptTokenId: user.scriptTokenId!, expiresAt: row.expiresAt && row.expiresAt < cap ? row.expiresAt : cap }
      : null;
    const issued = issueSecret('svp_');
    const [updated] = await tx
      .update(personalAccessTokens)
      .set({ tokenHash: issued.hash, tokenPrefix: issued.displayPrefix, rotatedAt: sql`now()`, ...derived })
      .where(eq(personalAccessTokens.id, row.id))
      .returning();
    await announceChange(tx, 'auth'); // the old secret's cached look-ups die now
    await writeAudit(tx, {
      actor: user,
      action: 'personal_access_token.rotate',
      targetType: 'personal_access_token',
      targetId: row.id,
      orgId: row.orgId,
      details: {
        name: row.name,
        instance_id: row.instanceKeyId,
        ...(derived && { rotated_with_api_token_id: derived.scriptTokenId, expires_at: derived.expiresAt }),
      },
    });
    return {
      id: row.id,
      name: row.name,
      secret: issued.secret,
      instanceId: row.instanceKeyId,
      expiresAt: updated!.expiresAt,
    };
  });
}

/** Revokes at once. The minter, or an admin of the token's organization. Revoking twice is harmless. */
export async function revokePat(user: UserPrincipal, id: string): Promise<{ id: string; revokedAt: Date }> {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const row = await loadInOrg(tx, user, id);
    const isOrgAdmin = user.orgId === row.orgId && user.orgRole === 'admin';
    if (row.userId !== user.userId && !isOrgAdmin) {
      throw new ServiceError('forbidden', 'Only the token’s minter or an organization admin may revoke it');
    }
    const [updated] = await tx
      .update(personalAccessTokens)
      .set({ revokedAt: sql`coalesce(${personalAccessTokens.revokedAt}, now())` })
      .where(eq(personalAccessTokens.id, row.id))
      .returning({ revokedAt: personalAccessTokens.revokedAt });
    if (!row.revokedAt) {
      await announceChange(tx, 'auth');
      await writeAudit(tx, {
        actor: user,
        action: 'personal_access_token.revoke',
        targetType: 'personal_access_token',
        targetId: row.id,
        orgId: row.orgId,
        details: { name: row.name, instance_id: row.instanceKeyId, minter_id: row.userId },
      });
    }
    return { id: row.id, revokedAt: updated!.revokedAt! };
  });
}

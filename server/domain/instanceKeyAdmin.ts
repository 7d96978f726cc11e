/**
 * Instance keys as the account and admin APIs manage them: listing (never the secret or its hash),
 * create / re-issue / revoke with an audit record in the same transaction.
 * Decision: revocation is final. A revoked key cannot be re-issued (409), so an org admin cannot undo
 * a platform admin's revocation; create a new key instead.
 */
import { ServiceError } from './errors';
import { and, asc, count, desc, eq, type SQL } from 'drizzle-orm';
import { getDb } from '../db/client';
import { instanceKeys, organizations } from '../db/schema';
import { writeAudit, type AuditActor } from './audit';
import { createInstanceKey, reissueInstanceKey, revokeInstanceKey } from './instanceKeys';
import { paginate } from './paginate';

const keyColumns = {
  id: instanceKeys.id,
  orgId: instanceKeys.orgId,
  name: instanceKeys.name,
  keyPrefix: instanceKeys.keyPrefix,
  status: instanceKeys.status,
  createdAt: instanceKeys.createdAt,
  lastUsedAt: instanceKeys.lastUsedAt,
  reissuedAt: instanceKeys.reissuedAt,
  revokedAt: instanceKeys.revokedAt,
};

const notFound = (): never => {
  throw new ServiceError('not_found', 'id: no such instance key in your organization');
};

export async function listInstanceKeys(orgId: string) {
  const db = await getDb();
  return db
    .select(keyColumns)
    .from(instanceKeys)
    .where(eq(instanceKeys.orgId, orgId))
    .orderBy(desc(instanceKeys.createdAt), asc(instanceKeys.id));
}

export async function createInstanceKeyAs(actor: AuditActor & { kind: 'user' }, orgId: string, name: string) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const { key, secret } = await createInstanceKey(tx, { orgId, name, createdBy: actor.userId });
    await writeAudit(tx, {
      actor,
      action: 'api_key.create',
      targetType: 'api_key',
      targetId: key.id,
      orgId,
      details: { name, key_prefix: key.keyPrefix },
    });
    return { key, secret };
  });
}

export async function reissueInstanceKeyAs(actor: AuditActor, orgId: string, id: string) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select(keyColumns)
      .from(instanceKeys)
      .where(and(eq(instanceKeys.id, id), eq(instanceKeys.orgId, orgId)))
      .for('update');
    if (!current) notFound();
    if (current!.status === 'revoked') {
      throw new ServiceError('conflict', 'id: this instance key is revoked and cannot be re-issued; create a new key');
    }
    const issued = await reissueInstanceKey(tx, { orgId, id });
    if (!issued) notFound();
    await writeAudit(tx, {
      actor,
      action: 'api_key.reissue',
      targetType: 'api_key',
      targetId: id,
      orgId,
      details: { name: current!.name, old_key_prefix: current!.keyPrefix, key_prefix: issued!.key.keyPrefix },
    });
    return issued!;
  });
}

/** Revokes a key of `orgId`, or of any organization when orgId is null (platform admin). Idempotent. */
export async function revokeInstanceKeyAs(actor: AuditActor, orgId: string | null, id: string) {
  const db = await getDb();
  return db.transaction(async (tx) => {
    const row = await revokeInstanceKey(tx, orgId ? { id, orgId } : { id });
    if (!row) {
      throw new ServiceError(
        'not_found',
        orgId ? 'id: no such instance key in your organization' : 'id: no such instance key',
      );
    }
    await writeAudit(tx, {
      actor,
      action: 'api_key.revoke',
      targetType: 'api_key',
      targetId: id,
      orgId: row.orgId,
      details: { name: row.name, key_prefix: row.keyPrefix, by: orgId ? 'organization' : 'platform' },
    });
    return row;
  });
}

export interface InstanceKeyFilters {
  orgId?: string;
  status?: 'active' | 'revoked';
}

export async function listAllInstanceKeys(
  filters: InstanceKeyFilters,
  { page, limit }: { page: number; limit: number },
) {
  const db = await getDb();
  const conditions: SQL[] = [];
  if (filters.orgId) conditions.push(eq(instanceKeys.orgId, filters.orgId));
  if (filters.status) conditions.push(eq(instanceKeys.status, filters.status));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  return paginate(
    { page, limit },
    (window) =>
      db
        .select({ ...keyColumns, orgName: organizations.name, orgSlug: organizations.slug })
        .from(instanceKeys)
        .innerJoin(organizations, eq(organizations.id, instanceKeys.orgId))
        .where(where)
        .orderBy(desc(instanceKeys.createdAt), asc(instanceKeys.id))
        .limit(window.limit)
        .offset(window.offset),
    () => db.select({ n: count() }).from(instanceKeys).where(where),
  );
}

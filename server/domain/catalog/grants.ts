/**
 * Access grants: an organization may see a private category. Creating one bumps the category's
 * templates (incremental sync delivers them to the organization); revoking one records sync exits for
 * the organization before the grant goes. Both in catalogWrite, with the audit record.
 */
import { ServiceError } from '../errors';
import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { getDb, type Tx } from '../../db/client';
import { accessGrants, categories, organizations } from '../../db/schema';
import { writeAudit, type AuditActor } from '../audit';
import { isUniqueViolation } from '../dbErrors';
import { bumpTemplates, catalogWrite, recordGrantExits } from './writes';

const grantSelection = {
  id: accessGrants.id,
  orgId: accessGrants.orgId,
  orgName: organizations.name,
  orgSlug: organizations.slug,
  categoryId: accessGrants.categoryId,
  categoryName: categories.name,
  categorySlug: categories.slug,
  createdAt: accessGrants.createdAt,
};

function grantsQuery(q: Tx | Awaited<ReturnType<typeof getDb>>, where?: SQL) {
  return q
    .select(grantSelection)
    .from(accessGrants)
    .innerJoin(organizations, eq(organizations.id, accessGrants.orgId))
    .innerJoin(categories, eq(categories.id, accessGrants.categoryId))
    .where(where)
    .orderBy(asc(organizations.name), asc(categories.name), asc(accessGrants.id));
}

export async function listGrants(filters: { orgId?: string; categoryId?: string }) {
  const db = await getDb();
  const conditions: SQL[] = [];
  if (filters.orgId) conditions.push(eq(accessGrants.orgId, filters.orgId));
  if (filters.categoryId) conditions.push(eq(accessGrants.categoryId, filters.categoryId));
  return grantsQuery(db, conditions.length > 0 ? and(...conditions) : undefined);
}

const exists = (): never => {
  throw new ServiceError('conflict', 'This organization already has access to this category');
};

export async function createGrant(actor: AuditActor, input: { orgId: string; categoryId: string }) {
  try {
    return await catalogWrite(async (change) => {
      const { tx } = change;
      const [org] = await tx
        .select({ id: organizations.id })
        .from(organizations)
        .where(eq(organizations.id, input.orgId))
        .for('share');
      if (!org) throw new ServiceError('not_found', 'org_id: no such organization');
      const [cat] = await tx.select().from(categories).where(eq(categories.id, input.categoryId)).for('share');
      if (!cat) throw new ServiceError('not_found', 'category_id: no such category');
      if (!cat.isPrivate) {
        throw new ServiceError(
          'invalid',
          `category_id: category "${cat.slug}" is not private; grants apply only to private categories`,
        );
      }
      const [dup] = await tx
        .select({ id: accessGrants.id })
        .from(accessGrants)
        .where(and(eq(accessGrants.orgId, input.orgId), eq(accessGrants.categoryId, input.categoryId)));
      if (dup) exists();
      const [row] = await tx.insert(accessGrants).values(input).returning({ id: accessGrants.id });
      await bumpTemplates(change, sql`t.category_id = ${input.categoryId}`);
      await writeAudit(tx, {
        actor,
        action: 'access_grant.create',
        targetType: 'access_grant',
        targetId: row!.id,
        orgId: input.orgId,
        details: { category_id: cat.id, category_slug: cat.slug },
      });
      const [grant] = await grantsQuery(tx, eq(accessGrants.id, row!.id));
      return grant!;
    });
  } catch (err) {
    if (isUniqueViolation(err)) exists();
    throw err;
  }
}

export async function deleteGrant(actor: AuditActor, by: { id: string } | { orgId: string; categoryId: string }) {
  return catalogWrite(async (change) => {
    const { tx } = change;
    const where =
      'id' in by
        ? eq(accessGrants.id, by.id)
        : and(eq(accessGrants.orgId, by.orgId), eq(accessGrants.categoryId, by.categoryId));
    const [grant] = await grantsQuery(tx, where);
    if (!grant)
      throw new ServiceError(
        'not_found',
        'id' in by ? 'id: no such access grant' : 'No access grant for this org_id and category_id',
      );
    await recordGrantExits(change, grant.orgId, grant.categoryId);
    await tx.delete(accessGrants).where(eq(accessGrants.id, grant.id));
    await writeAudit(tx, {
      actor,
      action: 'access_grant.delete',
      targetType: 'access_grant',
      targetId: grant.id,
      orgId: grant.orgId,
      details: { category_id: grant.categoryId, category_slug: grant.categorySlug },
    });
    return grant;
  });
}

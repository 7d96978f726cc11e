/**
 * Template administration: create, partial update, delete, and the admin listing (private included).
 * Every write runs in catalogWrite (sync lock + change timestamp), records sync exits before a change
 * that may hide the template from someone, stamps updated_at, and writes its audit record in the same
 * transaction. registry_credentials are encrypted before the transaction opens (the master secret may
 * need the database on first use, and PGlite must not be used outside the open transaction).
 */
import { randomUUID } from 'node:crypto';
import { ServiceError } from '../errors';
import { and, eq, isNotNull, ne, sql } from 'drizzle-orm';
import { type Queryable, type Tx } from '../../db/client';
import { categories, organizations, templates } from '../../db/schema';
import { writeAudit, type AuditActor } from '../audit';
import { isForeignKeyViolation, isUniqueViolation } from '../dbErrors';
import { encryptSecret, sealedFields } from '../sealing';
import type { Page } from '../paginate';
import type { TemplateFilters } from './filters';
import { listTemplatesForAdmin } from './list';
import { templateSelection, type TemplateRow } from './templateRow';
import { catalogWrite, recordExits, type CatalogChange } from './writes';

type Insert = typeof templates.$inferInsert;
/** Writable template columns; registryCredentials is the plaintext (null removes it). */
export type TemplateValues = Partial<
  Omit<Insert, 'id' | 'createdAt' | 'updatedAt' | 'downloadCount' | 'registryCredentialsEnc'>
> & { registryCredentials?: string | null };

export type AdminTemplateRow = TemplateRow & { hasRegistryCredentials: boolean };

const adminSelection = {
  ...templateSelection,
  hasRegistryCredentials: sql<boolean>`(${isNotNull(templates.registryCredentialsEnc)})`,
};

export async function getAdminTemplate(q: Queryable, id: string): Promise<AdminTemplateRow | null> {
  const [row] = await q
    .select(adminSelection)
    .from(templates)
    .innerJoin(categories, eq(categories.id, templates.categoryId))
    .where(eq(templates.id, id));
  return row ? { ...row, hasRegistryCredentials: Boolean(row.hasRegistryCredentials) } : null;
}

export async function listAdminTemplates(
  filters: TemplateFilters,
  page: Page,
): Promise<{ rows: AdminTemplateRow[]; total: number }> {
  return listTemplatesForAdmin(filters, page);
}

/** The template's id is known before the write: the ciphertext is bound to it. */
async function sealCredentials(id: string, values: TemplateValues) {
  const { registryCredentials, ...rest } = values;
  const sealed: Partial<Insert> = { ...rest };
  if (registryCredentials !== undefined) {
    sealed.registryCredentialsEnc =
      registryCredentials === null
        ? null
        : await encryptSecret(sealedFields.registryCredentials(id), registryCredentials);
  }
  return sealed;
}

async function checkReferences(tx: Tx, values: { categoryId?: string; orgId?: string | null }) {
  if (values.categoryId !== undefined) {
    const [cat] = await tx
      .select({ id: categories.id })
      .from(categories)
      .where(eq(categories.id, values.categoryId))
      .for('share');
    if (!cat) throw new ServiceError('not_found', 'category_id: no such category');
  }
  if (values.orgId) {
    const [org] = await tx
      .select({ id: organizations.id })
      .from(organizations)
      .where(eq(organizations.id, values.orgId))
      .for('share');
    if (!org) throw new ServiceError('not_found', 'org_id: no such organization');
  }
}

async function checkSlugFree(tx: Tx, slug: string, exceptId?: string) {
  const [taken] = await tx
    .select({ id: templates.id })
    .from(templates)
    .where(exceptId ? and(eq(templates.slug, slug), ne(templates.id, exceptId)) : eq(templates.slug, slug));
  if (taken) slugTaken(slug);
}

function slugTaken(slug: string): never {
  throw new ServiceError('conflict', `slug: a template with slug "${slug}" already exists`);
}

/** Maps constraint violations that races can still produce to the answers the checks give. */
async function guarded<T>(slug: string | undefined, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (isUniqueViolation(err) && slug) slugTaken(slug);
    if (isForeignKeyViolation(err))
      throw new ServiceError('not_found', 'category_id or org_id: the referenced record no longer exists');
    throw err;
  }
}

/** Field names for the audit record (never values: some are long, one is secret). */
const changedFields = (values: TemplateValues) => Object.keys(values).sort();

export async function createTemplate(
  actor: AuditActor,
  values: TemplateValues & Pick<Insert, 'name' | 'slug' | 'categoryId' | 'imageName'>,
) {
  const id = randomUUID();
  const sealed = await sealCredentials(id, values);
  return guarded(values.slug, () =>
    catalogWrite(async ({ tx, at }) => {
      await checkReferences(tx, values);
      await checkSlugFree(tx, values.slug);
      const [row] = await tx
        .insert(templates)
        .values({ ...(sealed as Insert), id, createdAt: at, updatedAt: at })
        .returning({ id: templates.id });
      await writeAudit(tx, {
        actor,
        action: 'template.create',
        targetType: 'template',
        targetId: row!.id,
        orgId: values.orgId ?? null,
        details: { slug: values.slug, name: values.name, fields: changedFields(values) },
      });
      return (await getAdminTemplate(tx, row!.id))!;
    }),
  );
}

async function lockTemplate(tx: Tx, id: string) {
  const [before] = await tx
    .select({
      id: templates.id,
      slug: templates.slug,
      isPublic: templates.isPublic,
      categoryId: templates.categoryId,
      orgId: templates.orgId,
    })
    .from(templates)
    .where(eq(templates.id, id))
    .for('update');
  if (!before) throw new ServiceError('not_found', 'id: no such template');
  return before;
}

/** Partial update; updated_at is always bumped to the change time. */
export async function updateTemplate(actor: AuditActor, id: string, values: TemplateValues) {
  const sealed = await sealCredentials(id, values);
  return guarded(values.slug, () =>
    catalogWrite(async (change: CatalogChange) => {
      const { tx, at } = change;
      const before = await lockTemplate(tx, id);
      await checkReferences(tx, values);
      if (values.slug !== undefined && values.slug !== before.slug) await checkSlugFree(tx, values.slug, id);
      const mayHide =
        (values.isPublic === false && before.isPublic) ||
        (values.categoryId !== undefined && values.categoryId !== before.categoryId) ||
        (values.orgId !== undefined && values.orgId !== before.orgId);
      if (mayHide) await recordExits(change, sql`t.id = ${id}`);
      // The template's own updated_at = at also delivers it to whoever may now see it for the first time.
      await tx
        .update(templates)
        .set({ ...sealed, updatedAt: at })
        .where(eq(templates.id, id));
      await writeAudit(tx, {
        actor,
        action: 'template.update',
        targetType: 'template',
        targetId: id,
        orgId: values.orgId !== undefined ? values.orgId : before.orgId,
        details: { slug: values.slug ?? before.slug, changed: changedFields(values) },
      });
      return (await getAdminTemplate(tx, id))!;
    }),
  );
}

export async function deleteTemplate(actor: AuditActor, id: string) {
  return catalogWrite(async (change) => {
    const { tx } = change;
    const before = await lockTemplate(tx, id);
    await recordExits(change, sql`t.id = ${id}`);
    await tx.delete(templates).where(eq(templates.id, id));
    await writeAudit(tx, {
      actor,
      action: 'template.delete',
      targetType: 'template',
      targetId: id,
      orgId: before.orgId,
      details: { slug: before.slug },
    });
    return before;
  });
}

/**
 * Deployments: desired state only (which template, with which environment and secrets). Core does not
 * run containers. Every write is validated against the synced template: required variables present,
 * undeclared ones refused, secrets referenced by name must exist. A deployment whose template has left
 * the catalog reads as status "template_missing".
 */
import { asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { catalogTemplates, deployments, secrets } from '../db/schema';
import { findTemplate, type CatalogTemplate } from './catalog';
import { CoreError, isUniqueViolation, notFound } from './errors';
import { pagination, type Page } from './principal';

export const DEPLOYMENT_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export interface DeploymentInput {
  name: string;
  template_slug: string;
  env: Record<string, string>;
  secret_refs: string[];
}

const invalid = (message: string) => new CoreError('invalid_request', message);

const columns = {
  row: deployments,
  templatePresent: sql<boolean>`${catalogTemplates.id} is not null`,
};

type Joined = { row: typeof deployments.$inferSelect; templatePresent: boolean };

function present({ row, templatePresent }: Joined) {
  return {
    id: row.id,
    name: row.name,
    template_slug: row.templateSlug,
    template_id: row.templateId,
    template_version: row.templateVersion,
    env: row.env,
    secret_refs: row.secretRefs,
    status: templatePresent ? ('ok' as const) : ('template_missing' as const),
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export type Deployment = ReturnType<typeof present>;

const selectJoined = (db: Db | Tx) =>
  db.select(columns).from(deployments).leftJoin(catalogTemplates, eq(catalogTemplates.id, deployments.templateId));

export async function listDeployments(db: Db, page: Page) {
  const [rows, [total]] = await Promise.all([
    selectJoined(db).orderBy(asc(deployments.name)).limit(page.limit).offset((page.page - 1) * page.limit),
    db.select({ n: count() }).from(deployments),
  ]);
  return { deployments: rows.map(present), pagination: pagination(total?.n ?? 0, page) };
}

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

export async function getDeployment(db: Db | Tx, id: string): Promise<Deployment> {
  const [row] = isUuid(id) ? await selectJoined(db).where(eq(deployments.id, id)) : [];
  if (!row) throw notFound('deployment');
  return present(row);
}

/** The checks of the issue: the template exists, env matches its declaration, the secrets exist. */
async function validate(tx: Tx, input: DeploymentInput): Promise<CatalogTemplate> {
  if (!DEPLOYMENT_NAME.test(input.name)) throw invalid('name: must be 1–63 characters of a–z, 0–9 and -, starting and ending with a letter or digit');
  const template = await findTemplate(tx, input.template_slug);
  if (!template) throw invalid(`template_slug: no template ${JSON.stringify(input.template_slug)} in this instance's catalog (it syncs from the Hub)`);

  const declared = new Map(template.env_schema.map((e) => [e.name, e]));
  for (const fixed of template.env) if (!declared.has(fixed.name)) declared.set(fixed.name, { name: fixed.name, required: false, default_value: fixed.value, description: '' });
  const unknown = Object.keys(input.env).filter((name) => !declared.has(name));
  if (unknown.length > 0) {
    const names = [...declared.keys()];
    throw invalid(`env: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not declared by template ${template.slug} (declared: ${names.length ? names.join(', ') : 'none'})`);
  }
  // A required variable with a default is satisfied by the default.
  const missing = template.env_schema.filter((e) => e.required && e.default_value === '' && (input.env[e.name] ?? '') === '').map((e) => e.name);
  if (missing.length > 0) throw invalid(`env: template ${template.slug} requires ${missing.join(', ')}`);

  const refs = [...new Set(input.secret_refs)];
  if (refs.length !== input.secret_refs.length) throw invalid('secret_refs: a secret is named twice');
  if (refs.length > 0) {
    const found = new Set((await tx.select({ name: secrets.name }).from(secrets).where(inArray(secrets.name, refs))).map((r) => r.name));
    const absent = refs.filter((r) => !found.has(r));
    if (absent.length > 0) throw invalid(`secret_refs: no secret named ${absent.join(', ')} (create ${absent.length > 1 ? 'them' : 'it'} under secrets first)`);
  }
  return template;
}

async function uniqueName<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw new CoreError('conflict', 'name: a deployment with this name already exists');
    throw err;
  }
}

export function createDeployment(db: Db, input: DeploymentInput, actor: string): Promise<Deployment> {
  return uniqueName(() =>
    db.transaction(async (tx) => {
      const template = await validate(tx, input);
      const [row] = await tx
        .insert(deployments)
        .values({
          name: input.name,
          templateId: template.id,
          templateSlug: template.slug,
          templateVersion: template.version,
          env: input.env,
          secretRefs: input.secret_refs,
          createdBy: actor,
        })
        .returning({ id: deployments.id });
      return getDeployment(tx, row!.id);
    }),
  );
}

/** Partial update: the result is validated as a whole against the template as it is now. */
export function updateDeployment(db: Db, id: string, patch: Partial<DeploymentInput>): Promise<Deployment> {
  return uniqueName(() =>
    db.transaction(async (tx) => {
      const current = await getDeployment(tx, id);
      const next: DeploymentInput = {
        name: patch.name ?? current.name,
        template_slug: patch.template_slug ?? current.template_slug,
        env: patch.env ?? current.env,
        secret_refs: patch.secret_refs ?? current.secret_refs,
      };
      const template = await validate(tx, next);
      await tx
        .update(deployments)
        .set({ name: next.name, templateId: template.id, templateSlug: template.slug, templateVersion: template.version, env: next.env, secretRefs: next.secret_refs, updatedAt: new Date() })
        .where(eq(deployments.id, current.id));
      return getDeployment(tx, current.id);
    }),
  );
}

export async function deleteDeployment(db: Db, id: string): Promise<void> {
  const gone = isUuid(id) ? await db.delete(deployments).where(eq(deployments.id, id)).returning({ id: deployments.id }) : [];
  if (gone.length === 0) throw notFound('deployment');
}

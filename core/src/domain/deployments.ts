/**
 * Deployments: desired state only (which template, with which environment and secrets). Core does not
 * run containers. Every write is validated against the synced template: required variables present,
 * undeclared ones refused, secrets referenced by name must exist. A deployment whose template has left
 * the catalog reads as status "template_missing".
 *
 * A variable is a literal or a binding to a Core secret (`{"secret": "db.password"}`). Bindings live in
 * deployment_secret_bindings and every caller sees them by the secret's name, never its value; a
 * variable whose name marks it as a credential takes only a binding. `secret_refs` stays: the secrets
 * a deployment gets mounted as files (not as environment variables).
 */
import { pagination } from '@shared/ops';
import { isCredentialName } from '@shared/tokens/credential-names';
import { asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { catalogTemplates, deploymentSecretBindings, deployments, secrets } from '../db/schema';
import { changed, recordActivity, type Actor } from './activity';
import { findTemplate, type CatalogTemplate } from './catalog';
import type { Sealer } from './crypto';
import { CoreError, isUniqueViolation, notFound } from './errors';
import { createSecretIfAbsent, SECRET_NAME } from './secrets';
import { type Page } from './principal';

export const DEPLOYMENT_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export type SecretBinding = { secret: string };
export type EnvValue = string | SecretBinding;

export interface DeploymentInput {
  name: string;
  template_slug: string;
  env: Record<string, EnvValue>;
  secret_refs: string[];
}

export const isBinding = (v: EnvValue): v is SecretBinding => typeof v === 'object' && v !== null;

const invalid = (message: string) => new CoreError('invalid_request', message);

const columns = {
  row: deployments,
  templatePresent: sql<boolean>`${catalogTemplates.id} is not null`,
};

type Joined = { row: typeof deployments.$inferSelect; templatePresent: boolean };

function present({ row, templatePresent }: Joined, bindings: Map<string, Record<string, SecretBinding>>) {
  const merged: Record<string, EnvValue> = { ...row.env, ...bindings.get(row.id) };
  const env = Object.fromEntries(
    Object.keys(merged)
      .sort()
      .map((k) => [k, merged[k]!]),
  );
  return {
    id: row.id,
    name: row.name,
    template_slug: row.templateSlug,
    template_id: row.templateId,
    template_version: row.templateVersion,
    env,
    secret_refs: row.secretRefs,
    status: templatePresent ? ('ok' as const) : ('template_missing' as const),
    created_by: row.createdBy,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

export type Deployment = ReturnType<typeof present>;

/** The bindings of these deployments, by deployment id: variable → { secret: name }. */
async function bindingsOf(db: Db | Tx, ids: string[]) {
  const byDeployment = new Map<string, Record<string, SecretBinding>>();
  if (ids.length === 0) return byDeployment;
  const rows = await db
    .select()
    .from(deploymentSecretBindings)
    .where(inArray(deploymentSecretBindings.deploymentId, ids));
  for (const r of rows) {
    const env = byDeployment.get(r.deploymentId) ?? {};
    env[r.variable] = { secret: r.secretName };
    byDeployment.set(r.deploymentId, env);
  }
  return byDeployment;
}

async function presentAll(db: Db | Tx, rows: Joined[]) {
  const bindings = await bindingsOf(
    db,
    rows.map((r) => r.row.id),
  );
  return rows.map((r) => present(r, bindings));
}

const selectJoined = (db: Db | Tx) =>
  db.select(columns).from(deployments).leftJoin(catalogTemplates, eq(catalogTemplates.id, deployments.templateId));

export async function listDeployments(db: Db, page: Page) {
  const [rows, [total]] = await Promise.all([
    selectJoined(db)
      .orderBy(asc(deployments.name))
      .limit(page.limit)
      .offset((page.page - 1) * page.limit),
    db.select({ n: count() }).from(deployments),
  ]);
  return { deployments: await presentAll(db, rows), pagination: pagination(page, total?.n ?? 0) };
}

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

export async function getDeployment(db: Db | Tx, id: string): Promise<Deployment> {
  const [row] = isUuid(id) ? await selectJoined(db).where(eq(deployments.id, id)) : [];
  if (!row) throw notFound('deployment');
  return (await presentAll(db, [row]))[0]!;
}

/** The checks of the issue: the template exists, env matches its declaration, the secrets exist. */
async function validate(tx: Tx, input: DeploymentInput): Promise<CatalogTemplate> {
  if (!DEPLOYMENT_NAME.test(input.name))
    throw invalid('name: must be 1–63 characters of a–z, 0–9 and -, starting and ending with a letter or digit');
  const template = await findTemplate(tx, input.template_slug);
  if (!template)
    throw invalid(
      `template_slug: no template ${JSON.stringify(input.template_slug)} in this instance's catalog (it syncs from the Hub)`,
    );

  const declared = new Map(template.env_schema.map((e) => [e.name, e]));
  for (const fixed of template.env)
    if (!declared.has(fixed.name))
      declared.set(fixed.name, { name: fixed.name, required: false, default_value: fixed.value, description: '' });
  const unknown = Object.keys(input.env).filter((name) => !declared.has(name));
  if (unknown.length > 0) {
    const names = [...declared.keys()];
    throw invalid(
      `env: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not declared by template ${template.slug} (declared: ${names.length ? names.join(', ') : 'none'})`,
    );
  }
  const credentialLiterals = Object.entries(input.env)
    .filter(([name, v]) => !isBinding(v) && isCredentialName(name))
    .map(([name]) => name);
  if (credentialLiterals.length > 0) {
    const [first] = credentialLiterals;
    throw invalid(
      `env: ${credentialLiterals.join(', ')} ${credentialLiterals.length > 1 ? 'name credentials' : 'names a credential'}: bind a secret instead of a literal value, ` +
        `e.g. "${first}": {"secret": "<secret name>"} (create the secret under secrets first)`,
    );
  }
  // A required variable with a default is satisfied by the default.
  const given = (name: string) => {
    const v = input.env[name];
    return v !== undefined && (isBinding(v) || v !== '');
  };
  const missing = template.env_schema
    .filter((e) => e.required && e.default_value === '' && !given(e.name))
    .map((e) => e.name);
  if (missing.length > 0) throw invalid(`env: template ${template.slug} requires ${missing.join(', ')}`);

  const bound = [
    ...new Set(
      Object.values(input.env)
        .filter(isBinding)
        .map((b) => b.secret),
    ),
  ];
  if (bound.length > 0) {
    const found = new Set(
      (await tx.select({ name: secrets.name }).from(secrets).where(inArray(secrets.name, bound))).map((r) => r.name),
    );
    const absent = Object.entries(input.env).filter(([, v]) => isBinding(v) && !found.has(v.secret));
    if (absent.length > 0) {
      const list = absent.map(([name, v]) => `${name} → ${(v as SecretBinding).secret}`).join(', ');
      throw invalid(
        `env: no secret named ${[...new Set(absent.map(([, v]) => (v as SecretBinding).secret))].join(', ')} (bound by ${list}; create it under secrets first)`,
      );
    }
  }

  const refs = [...new Set(input.secret_refs)];
  if (refs.length !== input.secret_refs.length) throw invalid('secret_refs: a secret is named twice');
  if (refs.length > 0) {
    const found = new Set(
      (await tx.select({ name: secrets.name }).from(secrets).where(inArray(secrets.name, refs))).map((r) => r.name),
    );
    const absent = refs.filter((r) => !found.has(r));
    if (absent.length > 0)
      throw invalid(
        `secret_refs: no secret named ${absent.join(', ')} (create ${absent.length > 1 ? 'them' : 'it'} under secrets first)`,
      );
  }
  return template;
}

/** Splits env into the literal column and the binding rows, replacing the deployment's bindings. */
async function writeEnv(tx: Tx, deploymentId: string, env: Record<string, EnvValue>) {
  await tx.delete(deploymentSecretBindings).where(eq(deploymentSecretBindings.deploymentId, deploymentId));
  const rows = Object.entries(env).flatMap(([variable, v]) =>
    isBinding(v) ? [{ deploymentId, variable, secretName: v.secret }] : [],
  );
  if (rows.length > 0) await tx.insert(deploymentSecretBindings).values(rows);
}

const literals = (env: Record<string, EnvValue>) =>
  Object.fromEntries(Object.entries(env).filter((e): e is [string, string] => !isBinding(e[1])));

async function uniqueName<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err)) throw new CoreError('conflict', 'name: a deployment with this name already exists');
    throw err;
  }
}

/** What the activity log shows of a deployment: variables and the names of the secrets it binds (never values). */
const described = (d: Deployment) => ({
  name: d.name,
  template_slug: d.template_slug,
  template_version: d.template_version,
  env: d.env,
  secret_refs: d.secret_refs,
});

export function createDeployment(db: Db, input: DeploymentInput, actor: Actor): Promise<Deployment> {
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
          env: literals(input.env),
          secretRefs: input.secret_refs,
          createdBy: actor.label,
        })
        .returning({ id: deployments.id });
      await writeEnv(tx, row!.id, input.env);
      const created = await getDeployment(tx, row!.id);
      await recordActivity(tx, actor, {
        action: 'deployment.create',
        target: { type: 'deployment', id: created.id, name: created.name },
        after: described(created),
      });
      return created;
    }),
  );
}

/** Partial update: the result is validated as a whole against the template as it is now. */
export function updateDeployment(
  db: Db,
  id: string,
  patch: Partial<DeploymentInput>,
  actor: Actor,
): Promise<Deployment> {
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
        .set({
          name: next.name,
          templateId: template.id,
          templateSlug: template.slug,
          templateVersion: template.version,
          env: literals(next.env),
          secretRefs: next.secret_refs,
          updatedAt: new Date(),
        })
        .where(eq(deployments.id, current.id));
      await writeEnv(tx, current.id, next.env);
      const updated = await getDeployment(tx, current.id);
      await recordActivity(tx, actor, {
        action: 'deployment.update',
        target: { type: 'deployment', id: updated.id, name: updated.name },
        ...changed(described(current), described(updated)),
      });
      return updated;
    }),
  );
}

export async function deleteDeployment(db: Db, id: string, actor: Actor): Promise<void> {
  await db.transaction(async (tx) => {
    const gone = isUuid(id) ? await tx.delete(deployments).where(eq(deployments.id, id)).returning() : [];
    const row = gone[0];
    if (!row) throw notFound('deployment');
    const before = {
      name: row.name,
      template_slug: row.templateSlug,
      template_version: row.templateVersion,
      env: row.env,
      secret_refs: row.secretRefs,
    };
    await recordActivity(tx, actor, {
      action: 'deployment.delete',
      target: { type: 'deployment', id: row.id, name: row.name },
      before,
    });
  });
}

/**
 * Start-up migration of rows written before bindings existed: each credential-named literal becomes a
 * secret named `deploy.<deployment>.<VAR>` (a free suffix when that name is taken by another value) and
 * a binding to it, one transaction per deployment. Idempotent: a second run finds nothing to move.
 * Returns what moved (names only, never values) for the start-up log.
 */
export async function moveCredentialLiterals(
  db: Db,
  sealer: Sealer,
): Promise<{ deployment: string; variable: string; secret: string }[]> {
  const moved: { deployment: string; variable: string; secret: string }[] = [];
  const rows = await db.select({ id: deployments.id, name: deployments.name, env: deployments.env }).from(deployments);
  for (const row of rows) {
    const credentials = Object.entries(row.env).filter(([name, v]) => typeof v === 'string' && isCredentialName(name));
    if (credentials.length === 0) continue;
    await db.transaction(async (tx) => {
      const env = { ...row.env };
      for (const [variable, value] of credentials) {
        const base = `deploy.${row.name}.${variable.replace(/[^A-Za-z0-9_.-]/g, '_')}`.slice(0, 120);
        let name = base;
        for (
          let n = 2;
          !(await createSecretIfAbsent(
            tx,
            sealer,
            name,
            value,
            `moved from deployment ${row.name}, variable ${variable}`,
          ));
          n++
        ) {
          name = `${base}.${n}`;
        }
        if (!SECRET_NAME.test(name))
          throw new Error(`migration produced an invalid secret name for ${row.name}.${variable}`);
        delete env[variable];
        await tx
          .insert(deploymentSecretBindings)
          .values({ deploymentId: row.id, variable, secretName: name })
          .onConflictDoUpdate({
            target: [deploymentSecretBindings.deploymentId, deploymentSecretBindings.variable],
            set: { secretName: name },
          });
        moved.push({ deployment: row.name, variable, secret: name });
      }
      await tx.update(deployments).set({ env }).where(eq(deployments.id, row.id));
    });
  }
  return moved;
}

/**
 * Deployments: the desired state (which template snapshot, with which environment and secrets, running or
 * stopped, on which host ports) and the operations on it. The reconciler (domain/reconciler.ts) makes the
 * container engine match; every answer carries its last observation (`observed`) from
 * deployment_observations, never an engine call per deployment. Every write is validated against the synced
 * template: required variables present, undeclared ones refused, secrets referenced by name must exist. A
 * deployment keeps the template it was deployed from (template_snapshot): a catalog sync changes nothing
 * that runs; a newer synced version shows as observed.update_available until apply-update deploys it.
 *
 * A variable is a literal or a binding to a Core secret (`{"secret": "db.password"}`). Bindings live in
 * deployment_secret_bindings and every caller sees them by the secret's name, never its value; a
 * variable whose name marks it as a credential takes only a binding. `secret_refs` stays: the secrets
 * a deployment gets mounted as files (not as environment variables).
 */
import { pagination } from '@shared/ops';
import { isCredentialName } from '@shared/tokens/credential-names';
import type { Readable } from 'node:stream';
import { asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Db, Tx } from '../db/client';
import { catalogTemplates, deploymentObservations, deploymentSecretBindings, deployments, secrets } from '../db/schema';
import { changed, recordActivity, type Actor } from './activity';
import { findTemplate, type CatalogTemplate } from './catalog';
import { ServiceError, isUniqueViolation, notFound } from './errors';
import { refuseCredentialValues } from './credentialLiterals';
import { type Page } from './principal';
import {
  OBSERVED_STATES,
  requireRuntime,
  runtimeOf,
  type EngineStatus,
  type Observation,
  type ObservedState,
} from './runtimeControl';

export const DEPLOYMENT_NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

export type SecretBinding = { secret: string };
export type EnvValue = string | SecretBinding;

export type HostPort = { container_port: number; protocol: 'tcp' | 'udp'; host_port: number };
export type DesiredState = 'running' | 'stopped';

export interface DeploymentInput {
  name: string;
  template_slug: string;
  env: Record<string, EnvValue>;
  secret_refs: string[];
  desired_state?: DesiredState;
  host_ports?: HostPort[];
}

export const isBinding = (v: EnvValue): v is SecretBinding => typeof v === 'object' && v !== null;

const invalid = (message: string) => new ServiceError('invalid', message);

const columns = {
  row: deployments,
  templatePresent: sql<boolean>`${catalogTemplates.id} is not null`,
  // A newer synced version than the snapshot it runs (applied by apply-update).
  updateAvailable: sql<boolean>`coalesce(
    ${catalogTemplates.data}->>'updated_at' is distinct from ${deployments.templateSnapshot}->>'updated_at'
    or ${catalogTemplates.data}->>'version' is distinct from ${deployments.templateSnapshot}->>'version', false)`,
  observation: deploymentObservations.observed,
};

type Joined = {
  row: typeof deployments.$inferSelect;
  templatePresent: boolean;
  updateAvailable: boolean;
  observation: Record<string, unknown> | null;
};

const NO_ENGINE_REASON =
  'no container engine (CORE_RUNTIME=none): Core keeps desired state only; start Docker or `podman system service`, set DOCKER_HOST and restart Core';

/** The observation as presented: the engine's status overrides it while the engine is down or absent. */
function observedOf(j: Joined, engine: EngineStatus | null) {
  const base: Observation = (j.observation as Observation | null) ?? {
    state: j.row.templateSnapshot || j.templatePresent ? 'pending' : 'template_missing',
    reason: j.row.templateSnapshot || j.templatePresent ? null : 'the template has left this instance’s catalog',
    since: j.row.updatedAt.toISOString(),
    health: null,
    ports: [],
    restarts: 0,
    exit_code: null,
    image: null,
    needs_restart: false,
  };
  let observed = { ...base };
  if (!engine || engine.state === 'none')
    observed = { ...observed, state: 'unknown', reason: NO_ENGINE_REASON, health: null, pull: undefined };
  else if (engine.state === 'down')
    observed = {
      ...observed,
      state: 'unknown',
      reason: `the container engine (${engine.description}) is unreachable`,
      since: engine.since.toISOString(),
      health: null,
      pull: undefined,
    };
  const { pull, ...rest } = observed;
  return {
    ...rest,
    ...(pull ? { pull } : {}),
    update_available: j.templatePresent && j.updateAvailable,
  };
}

function present(joined: Joined, bindings: Map<string, Record<string, SecretBinding>>, engine: EngineStatus | null) {
  const { row, templatePresent } = joined;
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
    desired_state: row.desiredState,
    host_ports: row.hostPorts,
    observed: observedOf(joined, engine),
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

async function presentAll(db: Db | Tx, rows: Joined[], engine: EngineStatus | null) {
  const bindings = await bindingsOf(
    db,
    rows.map((r) => r.row.id),
  );
  return rows.map((r) => present(r, bindings, engine));
}

const selectJoined = (db: Db | Tx) =>
  db
    .select(columns)
    .from(deployments)
    .leftJoin(catalogTemplates, eq(catalogTemplates.id, deployments.templateId))
    .leftJoin(deploymentObservations, eq(deploymentObservations.deploymentId, deployments.id));

const engineOf = (db: Db) => runtimeOf(db)?.engine() ?? null;

export async function listDeployments(db: Db, page: Page) {
  const [rows, [total]] = await Promise.all([
    selectJoined(db)
      .orderBy(asc(deployments.name))
      .limit(page.limit)
      .offset((page.page - 1) * page.limit),
    db.select({ n: count() }).from(deployments),
  ]);
  return { deployments: await presentAll(db, rows, engineOf(db)), pagination: pagination(page, total?.n ?? 0) };
}

const isUuid = (s: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(s);

/** One deployment; `engineFrom` is the database handle whose reconciler tells the engine's status (inside a transaction). */
export async function getDeployment(db: Db | Tx, id: string, engineFrom: Db | null = db as Db): Promise<Deployment> {
  const [row] = isUuid(id) ? await selectJoined(db).where(eq(deployments.id, id)) : [];
  if (!row) throw notFound('deployment');
  return (await presentAll(db, [row], engineFrom ? engineOf(engineFrom) : null))[0]!;
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
      `env: ${unknown.join(', ')} ${unknown.length > 1 ? 'are' : 'is'} not declared by template ${template.slug} ` +
        `(declared: ${names.length ? names.join(', ') : 'none'})`,
    );
  }
  const credentialLiterals = Object.entries(input.env)
    .filter(([name, v]) => !isBinding(v) && isCredentialName(name))
    .map(([name]) => name);
  if (credentialLiterals.length > 0) {
    const [first] = credentialLiterals;
    throw invalid(
      `env: ${credentialLiterals.join(', ')} ${credentialLiterals.length > 1 ? 'name credentials' : 'names a credential'}: ` +
        'bind a secret instead of a literal value, ' +
        `e.g. "${first}": {"secret": "<secret name>"} (create the secret under secrets first)`,
    );
  }
  refuseCredentialValues(input.env);
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

  const hostPorts = input.host_ports ?? [];
  const declaredPorts = new Set(
    ((template.ports as { containerPort: number; protocol?: string }[] | undefined) ?? []).map(
      (p) => `${p.containerPort}/${(p.protocol ?? 'tcp').toLowerCase()}`,
    ),
  );
  const seenHost = new Set<string>();
  for (const p of hostPorts) {
    if (!declaredPorts.has(`${p.container_port}/${p.protocol}`))
      throw invalid(
        `host_ports: template ${template.slug} does not publish ${p.container_port}/${p.protocol} (it publishes: ${[...declaredPorts].join(', ') || 'none'})`,
      );
    const key = `${p.host_port}/${p.protocol}`;
    if (seenHost.has(key)) throw invalid(`host_ports: host port ${key} is chosen twice`);
    seenHost.add(key);
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
    if (isUniqueViolation(err)) throw new ServiceError('conflict', 'name: a deployment with this name already exists');
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
  desired_state: d.desired_state,
  host_ports: d.host_ports,
});

/** After a write: the reconciler (if any) converges soon; the answer carries the observation as it is now. */
async function written(db: Db, id: string): Promise<Deployment> {
  runtimeOf(db)?.kick();
  return getDeployment(db, id);
}

export async function createDeployment(db: Db, input: DeploymentInput, actor: Actor): Promise<Deployment> {
  const id = await uniqueName(() =>
    db.transaction(async (tx) => {
      const template = await validate(tx, input);
      const [row] = await tx
        .insert(deployments)
        .values({
          name: input.name,
          templateId: template.id,
          templateSlug: template.slug,
          templateVersion: template.version,
          templateSnapshot: template,
          env: literals(input.env),
          secretRefs: input.secret_refs,
          desiredState: input.desired_state ?? 'running',
          hostPorts: input.host_ports ?? [],
          createdBy: actor.label,
        })
        .returning({ id: deployments.id });
      await writeEnv(tx, row!.id, input.env);
      const created = await getDeployment(tx, row!.id, null);
      await recordActivity(tx, actor, {
        action: 'deployment.create',
        target: { type: 'deployment', id: created.id, name: created.name },
        after: described(created),
      });
      return created.id;
    }),
  );
  return written(db, id);
}

/** Partial update: the result is validated as a whole against the template as it is now. */
/**
 * Partial update: the result is validated as a whole against the template as it is now. The snapshot it runs
 * stays unless the template itself changes (a newer version of the same template: apply-update).
 */
export async function updateDeployment(
  db: Db,
  id: string,
  patch: Partial<DeploymentInput>,
  actor: Actor,
): Promise<Deployment> {
  const updatedId = await uniqueName(() =>
    db.transaction(async (tx) => {
      const current = await getDeployment(tx, id, null);
      const next: DeploymentInput = {
        name: patch.name ?? current.name,
        template_slug: patch.template_slug ?? current.template_slug,
        env: patch.env ?? current.env,
        secret_refs: patch.secret_refs ?? current.secret_refs,
        desired_state: patch.desired_state ?? current.desired_state,
        host_ports: patch.host_ports ?? current.host_ports,
      };
      const template = await validate(tx, next);
      const retemplated = template.id !== current.template_id;
      await tx
        .update(deployments)
        .set({
          name: next.name,
          ...(retemplated
            ? {
                templateId: template.id,
                templateSlug: template.slug,
                templateVersion: template.version,
                templateSnapshot: template,
              }
            : {}),
          env: literals(next.env),
          secretRefs: next.secret_refs,
          desiredState: next.desired_state,
          hostPorts: next.host_ports,
          updatedAt: new Date(),
        })
        .where(eq(deployments.id, current.id));
      await writeEnv(tx, current.id, next.env);
      const updated = await getDeployment(tx, current.id, null);
      await recordActivity(tx, actor, {
        action: 'deployment.update',
        target: { type: 'deployment', id: updated.id, name: updated.name },
        ...changed(described(current), described(updated)),
      });
      return updated.id;
    }),
  );
  return written(db, updatedId);
}

/** Sets the desired state (start/stop); with an engine configured but unreachable: 503 naming it. */
async function setDesired(db: Db, id: string, state: DesiredState, actor: Actor): Promise<Deployment> {
  await getDeployment(db, id, null);
  const control = runtimeOf(db);
  if (control && control.engine().state !== 'none') requireRuntime(db);
  await db.transaction(async (tx) => {
    const current = await getDeployment(tx, id, null);
    await tx
      .update(deployments)
      .set({ desiredState: state, updatedAt: new Date() })
      .where(eq(deployments.id, current.id));
    await recordActivity(tx, actor, {
      action: state === 'running' ? 'deployment.start' : 'deployment.stop',
      target: { type: 'deployment', id: current.id, name: current.name },
      before: { desired_state: current.desired_state },
      after: { desired_state: state },
    });
  });
  return written(db, id);
}

/** POST …/start: the deployment should run (the reconciler creates or starts its container). */
export const startDeployment = (db: Db, id: string, actor: Actor) => setDesired(db, id, 'running', actor);

/** POST …/stop: the container is stopped and kept (volumes and its published ports' choice too). */
export const stopDeployment = (db: Db, id: string, actor: Actor) => setDesired(db, id, 'stopped', actor);

/** POST …/restart: needs the engine (503 naming it otherwise); re-creates the container when a secret changed. */
export async function restartDeployment(db: Db, id: string, actor: Actor): Promise<Deployment> {
  const current = await getDeployment(db, id);
  const control = requireRuntime(db);
  if (current.desired_state !== 'running')
    throw new ServiceError('conflict', `deployment ${current.name} is stopped: start it instead`);
  await control.restart(current.id);
  await recordActivity(db, actor, {
    action: 'deployment.restart',
    target: { type: 'deployment', id: current.id, name: current.name },
  });
  return written(db, id);
}

/** POST …/apply-update: deploy the template's synced version (its snapshot is replaced; the container follows). */
export async function applyTemplateUpdate(db: Db, id: string, actor: Actor): Promise<Deployment> {
  await db.transaction(async (tx) => {
    const current = await getDeployment(tx, id, null);
    const [found] = await tx
      .select({ data: catalogTemplates.data })
      .from(catalogTemplates)
      .where(eq(catalogTemplates.id, current.template_id));
    if (!found)
      throw new ServiceError(
        'conflict',
        `template ${current.template_slug} has left this instance’s catalog: there is no update to apply`,
      );
    const template = found.data as CatalogTemplate;
    if (!current.observed.update_available) return;
    await tx
      .update(deployments)
      .set({
        templateVersion: template.version,
        templateSnapshot: template,
        templateSlug: template.slug,
        updatedAt: new Date(),
      })
      .where(eq(deployments.id, current.id));
    await recordActivity(tx, actor, {
      action: 'deployment.apply_update',
      target: { type: 'deployment', id: current.id, name: current.name },
      before: { template_version: current.template_version },
      after: { template_version: template.version, template_updated_at: template.updated_at },
    });
  });
  return written(db, id);
}

/** GET …/logs (admin only: a process can print its secrets). Needs the engine. */
export async function deploymentLogs(db: Db, id: string, opts: { tail: number; follow: boolean }): Promise<Readable> {
  const current = await getDeployment(db, id);
  return requireRuntime(db).logs(current.id, opts);
}

/** The overview's counts: deployments by observed state, and the engine's status. */
export async function deploymentsByObservedState(db: Db): Promise<{
  engine: { state: EngineStatus['state']; since: string; description: string; error: string | null };
  by_state: Record<ObservedState, number>;
}> {
  const engine = engineOf(db);
  const byState = Object.fromEntries(OBSERVED_STATES.map((s) => [s, 0])) as Record<ObservedState, number>;
  if (!engine || engine.state !== 'up') {
    const [row] = await db.select({ n: count() }).from(deployments);
    byState.unknown = row?.n ?? 0;
  } else {
    const state = sql<ObservedState>`coalesce(${deploymentObservations.observed}->>'state', 'pending')`;
    const rows = await db
      .select({ state, n: count() })
      .from(deployments)
      .leftJoin(deploymentObservations, eq(deploymentObservations.deploymentId, deployments.id))
      .groupBy(state);
    for (const r of rows) byState[r.state] = (byState[r.state] ?? 0) + r.n;
  }
  const status = engine ?? { state: 'none' as const, since: new Date(0), description: 'none', error: null };
  return {
    engine: {
      state: status.state,
      since: status.since.toISOString(),
      description: status.description,
      error: status.error,
    },
    by_state: byState,
  };
}

/**
 * DELETE: the row goes, and its containers with it (now when the engine answers, else on the reconciler's next
 * pass). With `volumes` its named volumes go too, which needs the engine now (503 otherwise): the deployment is
 * stopped, its containers and volumes removed, and only then the row deleted — a failure leaves the deployment
 * as it was, so the delete can be asked again.
 */
export async function deleteDeployment(
  db: Db,
  id: string,
  actor: Actor,
  opts: { volumes?: boolean } = {},
): Promise<void> {
  if (opts.volumes) {
    const current = await getDeployment(db, id, null); // 404 before 503
    const control = requireRuntime(db);
    // Stopped first, so that no reconciler pass starts a container again while the volumes go.
    await db.update(deployments).set({ desiredState: 'stopped' }).where(eq(deployments.id, current.id));
    try {
      await control.remove(current.id, true);
    } catch (err) {
      await db
        .update(deployments)
        .set({ desiredState: current.desired_state })
        .where(eq(deployments.id, current.id))
        .catch(() => {});
      control.kick();
      throw err;
    }
  }
  const control = runtimeOf(db);
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
      ...(opts.volumes ? { after: { volumes: 'removed' } } : {}),
    });
  });
  if (!opts.volumes && control && control.engine().state === 'up')
    // Best effort: what is left (engine gone meanwhile) goes on the reconciler's next pass.
    await control.remove(id, false).catch(() => {});
  control?.kick();
}

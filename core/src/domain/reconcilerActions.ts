/**
 * The reconciler's acting (domain/reconciler.ts): what a pass does for one deployment to make the engine match
 * its desired state — pull its image (in the background), create and start its container, replace one whose spec
 * changed, start one stopped outside Core, stop it, remove containers no deployment has. A failure is kept with
 * its reason and retried after a while; what happened on the engine's side goes to the activity log once.
 * Secret values are read only to create a container.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { eq, inArray, sql } from 'drizzle-orm';
import type { RuntimeConfig } from '../config';
import type { Db } from '../db/client';
import { catalogTemplates, deploymentSecretBindings, deployments, secrets } from '../db/schema';
import type { Logger } from '../log';
import { RuntimeError, type ContainerSpec, type ObservedContainer, type Runtime } from '../runtime/runtime';
import { ENGINE_ACTOR, recordActivity } from './activity';
import { LABEL, planContainer, type DesiredDeployment } from './containerSpec';
import { sealedFields, type Sealer } from './crypto';
import { ENGINE_WORD_MS, type EngineEvents } from './reconcilerEvents';
import { exitWords, memoryOf, type Observations, type PassCalls } from './reconcilerObservations';
import type { Observation } from './runtimeControl';

/** A failed create/start/pull is retried after this long (the reason stays shown meanwhile). */
const RETRY_MS = 10_000;
/** A failed pull is tried again after this long (a registry that refused stays refused for a while). */
const PULL_RETRY_MS = 60_000;

/** The container went away under Core's hands (removed outside it meanwhile): the next pass sees what is left. */
const vanished = (err: unknown) => err instanceof RuntimeError && err.kind === 'not_found';

/** The reason of an observation Core itself stopped (desired state `stopped`). */
const STOPPED_BY_CORE = 'stopped';

/**
 * It ran when a pass last looked, or had ended since without Core stopping it: starting it now restores what was
 * ended outside Core. "Ended since" covers a pass that saw the exit while the engine had yet to say whether it would
 * restart the container (a stop by hand on Podman is a bare die, its cleanup a moment later).
 */
const ranUntilOutside = (before: Observation | undefined) =>
  before !== undefined &&
  (before.state === 'running' ||
    before.state === 'restarting' ||
    (before.state === 'exited' && before.reason !== STOPPED_BY_CORE));

interface Failure {
  /** The spec (or, for a failed pull, the image) that failed: another one is tried at once. */
  specHash: string | null;
  image: string | null;
  state: 'failed';
  reason: string;
  retryAt: number;
}

/** A deployment as a pass reads it. */
export type Row = {
  id: string;
  name: string;
  desiredState: 'running' | 'stopped';
  templateSnapshot: Record<string, unknown> | null;
  env: Record<string, string>;
  secretRefs: string[];
  hostPorts: DesiredDeployment['hostPorts'];
};

/** Every deployment's desired state, its secret bindings (variable → secret) and the secrets' versions. */
export async function desiredState(db: Db) {
  const rows: Row[] = await db
    .select({
      id: deployments.id,
      name: deployments.name,
      desiredState: deployments.desiredState,
      // A row without a snapshot (written before snapshots existed) runs the catalog's template.
      templateSnapshot: sql<Record<
        string,
        unknown
      > | null>`coalesce(${deployments.templateSnapshot}, ${catalogTemplates.data})`,
      env: deployments.env,
      secretRefs: deployments.secretRefs,
      hostPorts: deployments.hostPorts,
    })
    .from(deployments)
    .leftJoin(catalogTemplates, eq(catalogTemplates.id, deployments.templateId));
  const bindingRows = rows.length > 0 ? await db.select().from(deploymentSecretBindings) : [];
  const versions = new Map(
    (rows.length > 0 ? await db.select({ name: secrets.name, at: secrets.updatedAt }).from(secrets) : []).map((s) => [
      s.name,
      s.at.toISOString(),
    ]),
  );
  const bindings = new Map<string, Record<string, string>>();
  for (const b of bindingRows) {
    const m = bindings.get(b.deploymentId) ?? {};
    m[b.variable] = b.secretName;
    bindings.set(b.deploymentId, m);
  }
  return { rows, bindings, versions };
}

export class Actions {
  private readonly failures = new Map<string, Failure>();
  /** The failure reason last written to the activity log per deployment (a retry does not repeat it). */
  private readonly failureEntries = new Map<string, string | null>();
  private readonly pulls = new Map<string, { promise: Promise<void>; progress: Observation['pull'] }>();

  constructor(
    private readonly deps: {
      db: Db;
      log: Logger;
      sealer: Sealer;
      settings: RuntimeConfig;
      runtime: Runtime;
      instanceId: string;
      observations: Observations;
      events: EngineEvents;
      /** A pass in this many milliseconds (the loop's schedule). */
      schedule: (delayMs: number) => void;
    },
  ) {}

  forget(deploymentId: string) {
    this.failures.delete(deploymentId);
    this.failureEntries.delete(deploymentId);
  }

  /** Removes the container of a deployment that no longer exists. */
  async removeOrphan(deploymentId: string, c: ObservedContainer, calls: PassCalls) {
    calls.otherCalls++;
    this.deps.events.expectExit(c.id);
    await this.deps.runtime.remove(c.id);
    this.deps.log.info(
      { deployment_id: deploymentId, container: c.name },
      'removed the container of a deleted deployment',
    );
  }

  /**
   * Converges one deployment, then writes what happened on the engine's side to the activity log: restored after
   * a removal or stop outside Core, and failed/unschedulable once per reason (retries do not repeat it).
   */
  async convergeAndRecord(
    row: Row,
    bound: Record<string, string>,
    versions: Map<string, string>,
    mine: ObservedContainer[],
    calls: PassCalls,
  ) {
    const note: { restored?: string } = {};
    try {
      await this.converge(row, bound, versions, mine, calls, note);
    } finally {
      const now = this.deps.observations.get(row.id);
      const entries: { action: string; after: Record<string, unknown> }[] = [];
      if (note.restored) entries.push({ action: 'deployment.restored', after: { how: note.restored } });
      if (now && (now.state === 'failed' || now.state === 'unschedulable')) {
        if (this.failureEntries.get(row.id) !== now.reason) {
          this.failureEntries.set(row.id, now.reason);
          entries.push({ action: `deployment.${now.state}`, after: { reason: now.reason } });
        }
      } else if (now?.state === 'running') this.failureEntries.delete(row.id);
      for (const e of entries)
        await recordActivity(this.deps.db, ENGINE_ACTOR, {
          action: e.action,
          target: { type: 'deployment', id: row.id, name: row.name },
          after: e.after,
        }).catch((err) => this.deps.log.debug({ err }, 'engine-side activity not recorded'));
    }
  }

  private async converge(
    row: Row,
    bound: Record<string, string>,
    versions: Map<string, string>,
    mine: ObservedContainer[],
    calls: PassCalls,
    note: { restored?: string },
  ) {
    const { runtime, observations, events, schedule } = this.deps;
    const before = observations.get(row.id);
    const plan = planContainer(
      {
        id: row.id,
        name: row.name,
        desiredState: row.desiredState,
        snapshot: row.templateSnapshot,
        env: row.env,
        bindings: bound,
        secretRefs: row.secretRefs,
        hostPorts: row.hostPorts,
      },
      versions,
      this.deps.settings,
      this.deps.instanceId,
    );
    const base = { health: null, ports: [], restarts: 0, exit_code: null, image: null, needs_restart: false };
    if (!plan.ok) {
      observations.observe(row.id, { ...base, state: plan.state, reason: plan.reason });
      return;
    }
    const current =
      mine.find((c) => c.labels[LABEL.specHash] === plan.specHash) ??
      mine.find((c) => c.labels[LABEL.configHash] === plan.configHash);
    const stale = mine.filter((c) => c !== current);
    const removeStale = async (list: ObservedContainer[]) => {
      for (const c of list) {
        calls.otherCalls++;
        events.expectExit(c.id);
        await runtime.remove(c.id);
      }
    };
    const failure = this.failures.get(row.id);
    if (
      failure &&
      ((failure.specHash !== null && failure.specHash !== plan.specHash) ||
        (failure.image !== null && failure.image !== plan.image))
    )
      this.failures.delete(row.id);
    const failed = (reason: string) => {
      this.failures.set(row.id, {
        specHash: plan.specHash,
        image: null,
        state: 'failed',
        reason,
        retryAt: Date.now() + RETRY_MS,
      });
      observations.observe(row.id, { ...base, image: plan.image, state: 'failed', reason });
    };
    const waiting = () => {
      const f = this.failures.get(row.id);
      if (f && Date.now() < f.retryAt) {
        observations.observe(row.id, {
          ...(observations.get(row.id) ?? base),
          ...base,
          image: plan.image,
          state: 'failed',
          reason: f.reason,
        });
        return true;
      }
      return false;
    };

    if (row.desiredState === 'stopped') {
      await removeStale(stale);
      this.failures.delete(row.id);
      let exitCode = current?.exitCode ?? null;
      if (current && (current.state === 'running' || current.state === 'restarting' || current.state === 'paused')) {
        calls.otherCalls++;
        events.expectExit(current.id);
        try {
          await runtime.stop(current.id);
        } catch (err) {
          if (vanished(err)) return schedule(100);
          throw err;
        }
        exitCode = (await runtime.inspect(current.id))?.exitCode ?? null;
      }
      observations.observe(row.id, {
        ...base,
        image: plan.image,
        state: 'exited',
        reason: STOPPED_BY_CORE,
        exit_code: exitCode,
      });
      return;
    }

    if (!current) {
      if (waiting()) return;
      // Host ports the admin chose are taken by the old container until it goes: stop it first then.
      const collide = stale.some((c) =>
        c.ports.some((p) => plan.fixedHostPorts.includes(`${p.host_port}/${p.protocol}`)),
      );
      if (collide) await removeStale(stale);
      calls.otherCalls++;
      if (!(await runtime.hasImage(plan.image))) {
        this.pullInBackground(row.id, plan.image, plan.registryHost);
        const pull = this.pulls.get(plan.image);
        observations.observe(row.id, {
          ...base,
          image: plan.image,
          state: 'pulling',
          reason: null,
          ...(pull?.progress ? { pull: pull.progress } : {}),
        });
        return;
      }
      observations.observe(row.id, { ...base, image: plan.image, state: 'starting', reason: null });
      let id: string;
      try {
        const values = await this.revealSecrets(plan.secretNames);
        const auth = plan.registryHost ? await this.registryAuth(plan.registryHost) : null;
        calls.otherCalls++;
        id = await runtime.create(plan.resolve(values, auth));
      } catch (err) {
        if (err instanceof RuntimeError && err.kind === 'conflict') {
          // A container of this name exists (created by a pass of another process a moment ago): adopt next pass.
          schedule(200);
          return;
        }
        if (err instanceof RuntimeError && err.kind !== 'engine_down') return failed(err.message);
        throw err;
      }
      this.deps.log.info({ deployment: row.name, container: plan.name, image: plan.image }, 'container created');
      // It ran before and nothing of it is left (no container with an older spec either): removed outside Core.
      if (stale.length === 0 && ranUntilOutside(before))
        note.restored = 'its container was removed outside Core: created again';
      try {
        calls.otherCalls++;
        await this.startContainer(id, calls);
      } catch (err) {
        if (vanished(err)) return schedule(100);
        if (err instanceof RuntimeError && err.kind !== 'engine_down') return failed(err.message);
        throw err;
      }
      this.failures.delete(row.id);
      await removeStale(stale);
      const seen = await runtime.inspect(id);
      calls.otherCalls++;
      if (seen) observations.remember(id, seen);
      observations.observeContainer(row.id, plan, seen ?? null, memoryOf(row));
      return;
    }

    await removeStale(stale);
    let seen: ObservedContainer | null = current;
    if (current.state === 'exited' || current.state === 'created' || current.state === 'dead') {
      const inspected = await observations.inspect(current, calls);
      if (inspected?.oom && !this.failures.has(row.id)) {
        failed(exitWords(inspected.exitCode, true, memoryOf(row)));
        return;
      }
      if (waiting()) return;
      // A crash: the engine's restart policy brings it back; Core steps in only if it has not after a while.
      const died = events.lastDeath(current.id);
      if (died && Date.now() - died.at < ENGINE_WORD_MS) {
        schedule(ENGINE_WORD_MS);
        observations.observeContainer(row.id, plan, current, memoryOf(row));
        return;
      }
      // Stopped or removed outside Core while it should run: start it again.
      try {
        calls.otherCalls++;
        await this.startContainer(current.id, calls);
        observations.inspectAgain(current.id);
        this.failures.delete(row.id);
        calls.otherCalls++;
        seen = await runtime.inspect(current.id);
        if (ranUntilOutside(before)) note.restored = 'its container was stopped outside Core: started again';
      } catch (err) {
        if (vanished(err)) return schedule(100);
        if (err instanceof RuntimeError && err.kind !== 'engine_down') return failed(err.message);
        throw err;
      }
    } else if (current.state === 'restarting') {
      await observations.inspect(current, calls);
    } else if (current.state === 'running') {
      if (!observations.hasInspected(current.id)) await observations.inspect(current, calls);
      this.failures.delete(row.id);
    }
    observations.observeContainer(row.id, plan, seen, memoryOf(row));
  }

  /**
   * Starts a container. A host port "in use" is asked again a few times first: the engine may still hold it for a
   * container of this deployment that was just removed (Podman releases it a moment after answering).
   */
  private async startContainer(id: string, calls: PassCalls) {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.deps.runtime.start(id);
        return;
      } catch (err) {
        if (!(err instanceof RuntimeError && err.kind === 'port_in_use') || attempt >= 4) throw err;
        await sleep(250 * attempt);
        calls.otherCalls++;
      }
    }
  }

  private pullInBackground(deploymentId: string, image: string, registryHost: string | null) {
    if (this.pulls.has(image)) return;
    const entry: { promise: Promise<void>; progress: Observation['pull'] } = {
      promise: Promise.resolve(),
      progress: undefined,
    };
    entry.promise = (async () => {
      try {
        const auth = registryHost ? await this.registryAuth(registryHost) : null;
        this.deps.log.info({ image }, 'pulling image');
        await this.deps.runtime.pull(image, auth, (p) => {
          entry.progress = p;
          this.deps.observations.pullProgress(image, p);
        });
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        const failure = (retryMs: number): Failure => ({
          specHash: null,
          image,
          state: 'failed',
          reason,
          retryAt: Date.now() + retryMs,
        });
        for (const id of this.deps.observations.pulling(image)) this.failures.set(id, failure(PULL_RETRY_MS));
        // The failure is kept for the deployment that asked even before it was observed as pulling.
        if (!this.failures.has(deploymentId)) this.failures.set(deploymentId, failure(RETRY_MS));
        this.deps.log.warn({ image, error: reason }, 'image pull failed');
      } finally {
        this.pulls.delete(image);
        this.deps.schedule(0);
      }
    })();
    this.pulls.set(image, entry);
  }

  /** The values of these secrets, opened now for one container create; never kept. */
  private async revealSecrets(names: string[]): Promise<Map<string, string>> {
    const values = new Map<string, string>();
    if (names.length === 0) return values;
    const rows = await this.deps.db.select().from(secrets).where(inArray(secrets.name, names));
    for (const r of rows) values.set(r.name, this.deps.sealer.open(sealedFields.secret(r.name), r.sealedValue));
    return values;
  }

  /** Registry credentials: Core's sealed secret `registry.<host>` holding `user:password`, when it exists. */
  private async registryAuth(host: string): Promise<ContainerSpec['registryAuth']> {
    const name = `registry.${host}`;
    const values = await this.revealSecrets([name]);
    const v = values.get(name);
    if (!v) return null;
    const at = v.indexOf(':');
    return { serveraddress: host, username: at >= 0 ? v.slice(0, at) : v, password: at >= 0 ? v.slice(at + 1) : '' };
  }
}

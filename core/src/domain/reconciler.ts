/**
 * The reconciler: desired state in the database, actual state on the engine, one loop converging them
 * (docs/core-runtime.md). A pass runs after every write (kick), on the engine's events, and every
 * CORE_RECONCILE_INTERVAL seconds. It acts only while this process holds the database's reconciler lock, so
 * two Core processes on one PostgreSQL never both create; the others only watch whether the engine answers.
 *
 * Idempotent by labels: a container of this instance (label io.fleet.core.instance) is found by its
 * deployment id and spec hash; a restart of Core adopts what runs. A pass with nothing to change costs one
 * list call and no write: observations are written only when they change, and containers are inspected only
 * when they are not running (or first seen). Secret values are read only to create a container.
 *
 * This file is the loop and its lock, and the operations a request asks of the engine (RuntimeControl). A pass's
 * work is in three files beside it: reconcilerObservations.ts (reading the engine), reconcilerActions.ts
 * (create, replace, remove) and reconcilerEvents.ts (the engine's events, crashes into the activity log).
 */
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { eq } from 'drizzle-orm';
import type { RuntimeConfig } from '../config';
import type { Database, Db, HeldLock } from '../db/client';
import { settings } from '../db/schema';
import type { Logger } from '../log';
import { recordReconcilePass } from '../metrics';
import { RuntimeError, type ObservedContainer, type Runtime } from '../runtime/runtime';
import { LABEL } from './containerSpec';
import type { Sealer } from './crypto';
import { ServiceError } from './errors';
import { Actions, desiredState } from './reconcilerActions';
import { EngineEvents } from './reconcilerEvents';
import { Observations, type PassCalls } from './reconcilerObservations';
import {
  attachRuntime,
  detachRuntime,
  engineUnavailable,
  type EngineStatus,
  type RuntimeControl,
} from './runtimeControl';

/** pg_try_advisory_lock key of the one acting reconciler per database. */
const RECONCILER_LOCK = 72_620_133;
/** Containers handled at once in a pass (creates and starts are engine round trips). */
const CONCURRENCY = 4;

const INSTANCE_SETTING = 'runtime_instance_id';
/** NOTIFY channel: a write in a Core process without the lock asks the one with it for a pass. */
const NOTIFY_CHANNEL = 'core_reconcile';
/** How long a delete with its volumes waits for the engine to release them (a request waits that long at most). */
const VOLUME_RELEASE_MS = 30_000;

/** The id that labels everything this Core instance (this database) creates on an engine. */
export async function runtimeInstanceId(db: Db): Promise<string> {
  const generated = crypto.randomUUID().replace(/-/g, '');
  await db.insert(settings).values({ key: INSTANCE_SETTING, value: generated }).onConflictDoNothing();
  const [row] = await db.select().from(settings).where(eq(settings.key, INSTANCE_SETTING));
  return row!.value;
}

/** A pass's three jobs, on the engine this process talks to. */
interface Jobs {
  runtime: Runtime;
  events: EngineEvents;
  observations: Observations;
  actions: Actions;
}

export class Reconciler implements RuntimeControl {
  private status: EngineStatus;
  /** Null without an engine (CORE_RUNTIME=none): no pass ever runs, and requests get "engine unavailable". */
  private readonly jobs: Jobs | null;
  private lock: HeldLock | null = null;
  private timer: NodeJS.Timeout | null = null;
  private kickTimer: NodeJS.Timeout | null = null;
  private kickAt = 0;
  private running: Promise<void> | null = null;
  /** A write happened here since the last pass: a process without the lock tells the one with it. */
  private wrote = false;
  private unlisten: (() => Promise<void>) | null = null;
  private again = false;
  private stopped = false;
  /** Deployments whose container Core is operating on from a request (restart, delete): passes leave them alone. */
  private readonly operating = new Set<string>();
  /** Engine calls of the last pass (the bench and tests read it). */
  lastPass = { listCalls: 0, otherCalls: 0, ms: 0, at: 0 };
  passes = 0;

  constructor(
    private readonly deps: {
      db: Db;
      database: Database;
      sealer: Sealer;
      settings: RuntimeConfig;
      log: Logger;
      runtime: Runtime | null;
      instanceId: string;
    },
  ) {
    this.status = deps.runtime
      ? { state: 'up', since: new Date(), description: deps.runtime.description, error: null }
      : { state: 'none', since: new Date(), description: 'none', error: null };
    this.jobs = deps.runtime ? this.jobsOn(deps.runtime) : null;
    attachRuntime(deps.db, this);
  }

  private jobsOn(runtime: Runtime): Jobs {
    const { db, log, sealer, settings, instanceId } = this.deps;
    const stopped = () => this.stopped;
    const schedule = (delayMs: number) => this.schedule(delayMs);
    const events: EngineEvents = new EngineEvents({
      db,
      log,
      runtime,
      instanceId,
      stopped,
      changed: (containerId) => observations.inspectAgain(containerId),
      // Events come in bursts (die, restart, init, start): one pass for the burst.
      burst: () => this.schedule(300),
    });
    const observations = new Observations({ db, log, runtime, events, stopped });
    const actions = new Actions({ db, log, sealer, settings, runtime, instanceId, observations, events, schedule });
    return { runtime, events, observations, actions };
  }

  get instanceId() {
    return this.deps.instanceId;
  }

  engine(): EngineStatus {
    return this.status;
  }

  /** Begins the loop: a first pass now, then one per interval. */
  start() {
    if (!this.jobs || this.timer) return;
    this.stopped = false;
    this.timer = setInterval(() => this.schedule(0), this.deps.settings.reconcileIntervalSeconds * 1000);
    this.timer.unref();
    this.schedule(0);
  }

  /** Ends the loop, waits for a pass in flight, releases the lock (graceful shutdown). */
  async stop() {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.kickTimer) clearTimeout(this.kickTimer);
    this.timer = this.kickTimer = null;
    this.jobs?.observations.stop();
    this.jobs?.events.unfollow();
    await this.running?.catch(() => {});
    // A pull in flight is not waited for (it may take minutes): it ends with the process.
    await this.unlisten?.().catch(() => {});
    this.unlisten = null;
    await this.lock?.release().catch(() => {});
    this.lock = null;
    detachRuntime(this.deps.db);
  }

  /** After a write: a pass soon, here or (through NOTIFY) in the process that holds the lock. */
  kick() {
    this.wrote = true;
    this.schedule(20);
  }

  /** A pass in `delayMs` (the earliest asked for wins); a short one asked during a pass runs right after it. */
  private schedule(delayMs: number) {
    if (!this.jobs || this.stopped) return;
    if (this.running && delayMs <= 50) {
      this.again = true;
      return;
    }
    const at = Date.now() + delayMs;
    if (this.kickTimer) {
      if (this.kickAt <= at) return;
      clearTimeout(this.kickTimer);
    }
    this.kickAt = at;
    this.kickTimer = setTimeout(() => {
      this.kickTimer = null;
      // A pass began meanwhile: one more after it, rather than a waiter of its own (see passNow).
      if (this.running) {
        this.again = true;
        return;
      }
      void this.passNow();
    }, delayMs);
    this.kickTimer.unref();
  }

  /** Runs a pass now (or waits for the one in flight and runs another); resolves when done. */
  async passNow(): Promise<void> {
    const jobs = this.jobs;
    if (!jobs || this.stopped) return;
    // A caller waits for the pass in flight and then runs its own; it must not also ask for one more (`again`):
    // two waiters that did kept each other's passes going back to back forever.
    while (this.running) await this.running.catch(() => {});
    this.again = false;
    const started = performance.now();
    let failed = false;
    this.running = this.pass(jobs)
      .catch((err) => {
        failed = true;
        this.deps.log.error({ err }, 'reconciler pass failed');
      })
      .finally(() => {
        const result = failed ? 'error' : this.status.state === 'down' ? 'engine_down' : this.lock ? 'ok' : 'standby';
        recordReconcilePass(result, performance.now() - started);
        this.running = null;
        if (this.again && !this.stopped) {
          this.again = false;
          this.schedule(0);
        }
      });
    return this.running;
  }

  private markDown(err: RuntimeError) {
    if (this.status.state !== 'down') {
      this.status = { state: 'down', since: new Date(), description: this.status.description, error: err.message };
      this.deps.log.warn(
        { engine: this.status.description, error: err.message },
        'container engine unreachable: deployments read unknown until it answers again (desired state is kept)',
      );
      this.jobs?.events.unfollow();
    }
  }

  private markUp() {
    if (this.status.state !== 'up') {
      this.deps.log.info({ engine: this.status.description }, 'container engine answers again: converging');
      this.status = { state: 'up', since: new Date(), description: this.status.description, error: null };
    }
  }

  private async leader(jobs: Jobs): Promise<boolean> {
    if (this.lock && !(await this.lock.held())) {
      this.deps.log.warn({}, 'reconciler lock lost (its database connection ended): trying to take it again');
      await this.lock.release().catch(() => {});
      this.lock = null;
      jobs.observations.unload();
      await this.unlisten?.().catch(() => {});
      this.unlisten = null;
    }
    if (!this.lock) {
      this.lock = await this.deps.database.tryLock(RECONCILER_LOCK);
      if (this.lock) {
        this.deps.log.info({}, 'reconciler: this process acts on the container engine for this database');
        // Writes made through other Core processes start a pass here at once.
        this.unlisten = await this.deps.database.listen(NOTIFY_CHANNEL, () => this.schedule(20));
      }
    }
    return this.lock !== null;
  }

  private async pass(jobs: Jobs) {
    const { runtime, events, observations, actions } = jobs;
    const started = performance.now();
    const calls: PassCalls = { listCalls: 0, otherCalls: 0 };
    this.passes++;
    const leading = await this.leader(jobs);
    let containers: ObservedContainer[];
    try {
      calls.listCalls++;
      if (!leading) {
        if (this.wrote) await this.deps.database.notify(NOTIFY_CHANNEL).catch(() => {});
        this.wrote = false;
        await runtime.ping();
        this.markUp();
        return;
      }
      containers = await runtime.list({ [LABEL.instance]: this.deps.instanceId });
      this.markUp();
    } catch (err) {
      if (err instanceof RuntimeError && err.kind === 'engine_down') {
        this.markDown(err);
        return;
      }
      throw err;
    }
    events.follow();
    await observations.load();

    const { rows, bindings, versions } = await desiredState(this.deps.db);
    const byDeployment = new Map<string, ObservedContainer[]>();
    for (const c of containers) {
      const id = c.labels[LABEL.deployment];
      if (!id) continue;
      byDeployment.set(id, [...(byDeployment.get(id) ?? []), c]);
    }

    const known = new Set(rows.map((r) => r.id));
    const work: (() => Promise<void>)[] = [];
    for (const row of rows)
      work.push(async () => {
        if (this.operating.has(row.id)) return;
        await actions.convergeAndRecord(
          row,
          bindings.get(row.id) ?? {},
          versions,
          byDeployment.get(row.id) ?? [],
          calls,
        );
      });
    // Containers of deleted deployments.
    for (const [id, list] of byDeployment)
      if (!known.has(id)) for (const c of list) work.push(() => actions.removeOrphan(id, c, calls));
    for (const id of observations.deploymentIds()) if (!known.has(id)) this.forget(jobs, id);
    // What is remembered per container lives as long as the container.
    const present = new Set(containers.map((c) => c.id));
    observations.keepContainers(present);
    events.keepContainers(present);

    for (let i = 0; i < work.length; i += CONCURRENCY)
      await Promise.all(
        work.slice(i, i + CONCURRENCY).map((w) =>
          w().catch((err) => {
            if (err instanceof RuntimeError && err.kind === 'engine_down') this.markDown(err);
            else this.deps.log.error({ err }, 'reconciler: a deployment could not be converged');
          }),
        ),
      );
    await observations.flush();
    this.lastPass = { ...calls, ms: performance.now() - started, at: Date.now() };
  }

  private forget(jobs: Jobs, id: string) {
    jobs.observations.forget(id);
    jobs.actions.forget(id);
  }

  // RuntimeControl: the operations that need the engine now.

  private requireUp(): Jobs {
    if (this.status.state !== 'up' || !this.jobs) throw engineUnavailable(this.status);
    return this.jobs;
  }

  private async containersOf(deploymentId: string) {
    return this.engineCall(() =>
      this.requireUp().runtime.list({ [LABEL.instance]: this.deps.instanceId, [LABEL.deployment]: deploymentId }),
    );
  }

  /** An engine call from a request: "engine down" becomes the 503 naming it. */
  private async engineCall<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof RuntimeError && err.kind === 'engine_down') {
        this.markDown(err);
        throw engineUnavailable(this.status);
      }
      if (err instanceof RuntimeError) throw new ServiceError('conflict', err.message);
      throw err;
    }
  }

  async restart(deploymentId: string) {
    return this.operatingOn(deploymentId, () => this.restartNow(deploymentId));
  }

  private async restartNow(deploymentId: string) {
    const { runtime, events, observations } = this.requireUp();
    const list = await this.containersOf(deploymentId);
    const needsNew = observations.get(deploymentId)?.needs_restart ?? false;
    const current = list.find((c) => c.state === 'running') ?? list[0];
    if (!current || needsNew) {
      // A rotated secret is only picked up by a new container: remove, and the pass creates it.
      for (const c of list) {
        events.expectExit(c.id);
        await this.engineCall(() => runtime.remove(c.id));
      }
      this.operating.delete(deploymentId);
      await this.passNow();
      return;
    }
    events.expectExit(current.id);
    await this.engineCall(() => runtime.restart(current.id));
    observations.inspectAgain(current.id);
    this.schedule(0);
  }

  async remove(deploymentId: string, volumes: boolean) {
    return this.operatingOn(deploymentId, () => this.removeNow(deploymentId, volumes));
  }

  private async removeNow(deploymentId: string, volumes: boolean) {
    const jobs = this.requireUp();
    const { runtime, events } = jobs;
    const labels = { [LABEL.instance]: this.deps.instanceId, [LABEL.deployment]: deploymentId };
    for (const c of await this.containersOf(deploymentId)) {
      events.expectExit(c.id);
      await this.engineCall(() => runtime.remove(c.id));
    }
    if (volumes) {
      // A forced removal can answer before the engine lets go of the volumes (Podman's clean-up process, seconds
      // late on a busy machine): wait for the containers to be gone, and try a volume still "in use" again for up
      // to VOLUME_RELEASE_MS.
      const deadline = Date.now() + VOLUME_RELEASE_MS;
      while ((await this.containersOf(deploymentId)).length > 0 && Date.now() < deadline) await sleep(100);
      for (let attempt = 1; ; attempt++) {
        try {
          await runtime.removeVolumes(labels);
          break;
        } catch (err) {
          if (!(err instanceof RuntimeError && err.kind === 'conflict') || Date.now() >= deadline)
            return this.engineCall(() => Promise.reject(err));
          await sleep(Math.min(200 * attempt, 1_000));
        }
      }
    }
    this.forget(jobs, deploymentId);
  }

  /** Runs a request's engine operation on a deployment with the passes kept off it (after any pass in flight). */
  private async operatingOn<T>(deploymentId: string, fn: () => Promise<T>): Promise<T> {
    await this.running?.catch(() => {});
    this.operating.add(deploymentId);
    try {
      return await fn();
    } finally {
      this.operating.delete(deploymentId);
    }
  }

  async logs(deploymentId: string, opts: { tail: number; follow: boolean }): Promise<Readable> {
    const list = await this.containersOf(deploymentId);
    const current = list.find((c) => c.state === 'running') ?? [...list].sort((a, b) => b.created - a.created)[0];
    if (!current)
      throw new ServiceError('conflict', 'this deployment has no container yet (see observed.state and reason)');
    const stream = await this.engineCall(() => this.requireUp().runtime.logs(current.id, opts));
    return stream instanceof Readable ? stream : Readable.from(stream as AsyncIterable<Buffer>);
  }
}

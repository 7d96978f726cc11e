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
 */
import { Readable } from 'node:stream';
import { eq, inArray, sql } from 'drizzle-orm';
import type { RuntimeConfig } from '../config';
import type { Database, Db, HeldLock } from '../db/client';
import {
  catalogTemplates,
  deploymentObservations,
  deploymentSecretBindings,
  deployments,
  secrets,
  settings,
} from '../db/schema';
import type { Logger } from '../log';
import { recordReconcilePass } from '../metrics';
import { RuntimeError, type ContainerSpec, type ObservedContainer, type Runtime } from '../runtime/runtime';
import { ENGINE_ACTOR, recordActivity } from './activity';
import { LABEL, planContainer, type DesiredDeployment } from './containerSpec';
import { sealedFields, type Sealer } from './crypto';
import { ServiceError } from './errors';
import {
  attachRuntime,
  detachRuntime,
  engineUnavailable,
  type EngineStatus,
  type Observation,
  type RuntimeControl,
} from './runtimeControl';

/** pg_try_advisory_lock key of the one acting reconciler per database. */
const RECONCILER_LOCK = 72_620_133;
/** A failed create/start/pull is retried after this long (the reason stays shown meanwhile). */
const RETRY_MS = 10_000;
/** A failed pull is tried again after this long (a registry that refused stays refused for a while). */
const PULL_RETRY_MS = 60_000;
/** Containers handled at once in a pass (creates and starts are engine round trips). */
const CONCURRENCY = 4;

const INSTANCE_SETTING = 'runtime_instance_id';
/** NOTIFY channel: a write in a Core process without the lock asks the one with it for a pass. */
const NOTIFY_CHANNEL = 'core_reconcile';
/** A container that ended unexpectedly twice within this time and runs again reads as restarting (a crash loop). */
const CRASH_WINDOW_MS = 30_000;
/** At most one crash entry per deployment in this time (a crash loop would flood the activity log). */
const CRASH_ENTRY_EVERY_MS = 60_000;

/** How long after a crash the engine's restart policy has to bring a container back before Core starts it. */
const ENGINE_RESTART_GRACE_MS = 5_000;

/** The container went away under Core's hands (removed outside it meanwhile): the next pass sees what is left. */
const vanished = (err: unknown) => err instanceof RuntimeError && err.kind === 'not_found';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const memoryOf = (row: { templateSnapshot: Record<string, unknown> | null }) =>
  String(row.templateSnapshot?.memory_request ?? '');

/** Why a container ended, in words. Exit 137 is a SIGKILL: the OOM killer's when the engine says so, else likely. */
function exitWords(code: number | null, oom: boolean, memory: string): string {
  if (oom) return `out of memory: killed by the kernel's OOM killer at its memory limit (${memory || 'none'})`;
  if (code === 137)
    return `exit code 137 (killed: out of memory at its memory limit ${memory || '(none)'}, or a SIGKILL)`;
  return code === null ? 'an unknown exit' : `exit code ${code}`;
}

/** The id that labels everything this Core instance (this database) creates on an engine. */
export async function runtimeInstanceId(db: Db): Promise<string> {
  const generated = crypto.randomUUID().replace(/-/g, '');
  await db.insert(settings).values({ key: INSTANCE_SETTING, value: generated }).onConflictDoNothing();
  const [row] = await db.select().from(settings).where(eq(settings.key, INSTANCE_SETTING));
  return row!.value;
}

interface Failure {
  /** The spec (or, for a failed pull, the image) that failed: another one is tried at once. */
  specHash: string | null;
  image: string | null;
  state: 'failed';
  reason: string;
  retryAt: number;
}

type Row = {
  id: string;
  name: string;
  desiredState: 'running' | 'stopped';
  templateSnapshot: Record<string, unknown> | null;
  env: Record<string, string>;
  secretRefs: string[];
  hostPorts: DesiredDeployment['hostPorts'];
};

export class Reconciler implements RuntimeControl {
  private status: EngineStatus;
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
  private stopEvents: (() => void) | null = null;
  /** Last observation per deployment, as written to deployment_observations. */
  private readonly observed = new Map<string, Observation>();
  private readonly written = new Map<string, string>();
  private loaded = false;
  private readonly failures = new Map<string, Failure>();
  /** Deployments whose container Core is operating on from a request (restart, delete): passes leave them alone. */
  private readonly operating = new Set<string>();
  /** The failure reason last written to the activity log per deployment (a retry does not repeat it). */
  private readonly failureEntries = new Map<string, string | null>();
  /** Per container id: restarts and OOM as last inspected (inspect only when it changes state). */
  private readonly inspected = new Map<
    string,
    { state: string; restarts: number; oom: boolean; exitCode: number | null; error: string }
  >();
  private readonly pulls = new Map<string, { promise: Promise<void>; progress: Observation['pull'] }>();
  /** The last unexpected exit of a container (from the event stream): a crash loop reads as restarting. */
  private readonly lastDie = new Map<string, { at: number; exitCode: number | null; oom: boolean; count: number }>();
  /** Crash entries in the activity log: at most one per deployment per minute (a crash loop counts the rest). */
  private readonly crashEntries = new Map<string, { at: number; suppressed: number }>();
  /** Containers stopped or killed through the engine by someone else (their "die" is not a crash). */
  private readonly stoppedOutside = new Set<string>();
  /** Containers Core itself stops or removes: their "die" is not a crash. */
  private readonly expectedExits = new Set<string>();
  private flushTimer: NodeJS.Timeout | null = null;
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
    attachRuntime(deps.db, this);
  }

  get instanceId() {
    return this.deps.instanceId;
  }

  engine(): EngineStatus {
    return this.status;
  }

  /** Begins the loop: a first pass now, then one per interval. */
  start() {
    if (!this.deps.runtime || this.timer) return;
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
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.timer = this.kickTimer = this.flushTimer = null;
    this.stopEvents?.();
    this.stopEvents = null;
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
    if (!this.deps.runtime || this.stopped) return;
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
    if (!this.deps.runtime || this.stopped) return;
    // A caller waits for the pass in flight and then runs its own; it must not also ask for one more (`again`):
    // two waiters that did kept each other's passes going back to back forever.
    while (this.running) await this.running.catch(() => {});
    this.again = false;
    const started = performance.now();
    let failed = false;
    this.running = this.pass()
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
      this.stopEvents?.();
      this.stopEvents = null;
    }
  }

  private markUp() {
    if (this.status.state !== 'up') {
      this.deps.log.info({ engine: this.status.description }, 'container engine answers again: converging');
      this.status = { state: 'up', since: new Date(), description: this.status.description, error: null };
    }
  }

  private async leader(): Promise<boolean> {
    if (this.lock && !(await this.lock.held())) {
      this.deps.log.warn({}, 'reconciler lock lost (its database connection ended): trying to take it again');
      await this.lock.release().catch(() => {});
      this.lock = null;
      this.loaded = false;
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

  private async pass() {
    const runtime = this.deps.runtime!;
    const started = performance.now();
    const calls = { listCalls: 0, otherCalls: 0 };
    this.passes++;
    const leading = await this.leader();
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
    if (!this.stopEvents) this.subscribe();
    if (!this.loaded) await this.loadObservations();

    const db = this.deps.db;
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
    const byDeployment = new Map<string, ObservedContainer[]>();
    for (const c of containers) {
      const id = c.labels[LABEL.deployment];
      if (!id) continue;
      byDeployment.set(id, [...(byDeployment.get(id) ?? []), c]);
    }

    const known = new Set(rows.map((r) => r.id));
    const work: (() => Promise<void>)[] = [];
    for (const row of rows)
      work.push(() =>
        this.convergeAndRecord(row, bindings.get(row.id) ?? {}, versions, byDeployment.get(row.id) ?? [], calls),
      );
    // Containers of deleted deployments.
    for (const [id, list] of byDeployment)
      if (!known.has(id))
        for (const c of list)
          work.push(async () => {
            calls.otherCalls++;
            this.expectedExits.add(c.id);
            await runtime.remove(c.id);
            this.deps.log.info(
              { deployment_id: id, container: c.name },
              'removed the container of a deleted deployment',
            );
          });
    for (const id of [...this.observed.keys()]) if (!known.has(id)) this.forget(id);
    // What is remembered per container lives as long as the container.
    const present = new Set(containers.map((c) => c.id));
    for (const map of [this.inspected, this.lastDie])
      for (const id of [...map.keys()]) if (!present.has(id)) map.delete(id);
    for (const set of [this.expectedExits, this.stoppedOutside])
      for (const id of [...set]) if (!present.has(id)) set.delete(id);

    for (let i = 0; i < work.length; i += CONCURRENCY)
      await Promise.all(
        work.slice(i, i + CONCURRENCY).map((w) =>
          w().catch((err) => {
            if (err instanceof RuntimeError && err.kind === 'engine_down') this.markDown(err);
            else this.deps.log.error({ err }, 'reconciler: a deployment could not be converged');
          }),
        ),
      );
    await this.flush();
    this.lastPass = { ...calls, ms: performance.now() - started, at: Date.now() };
  }

  private forget(id: string) {
    this.observed.delete(id);
    this.written.delete(id);
    this.failures.delete(id);
    this.failureEntries.delete(id);
  }

  private async loadObservations() {
    const rows = await this.deps.db.select().from(deploymentObservations);
    for (const r of rows) {
      const o = r.observed as unknown as Observation;
      this.observed.set(r.deploymentId, o);
      this.written.set(r.deploymentId, JSON.stringify(o));
    }
    this.loaded = true;
  }

  /** Sets a deployment's observation; `since` moves only when the state changes. */
  private observe(id: string, next: Omit<Observation, 'since'> & { since?: string }) {
    const prev = this.observed.get(id);
    const since = next.since ?? (prev && prev.state === next.state ? prev.since : new Date().toISOString());
    const o: Observation = { ...next, since };
    if (!o.pull) delete o.pull;
    this.observed.set(id, o);
  }

  /** Writes the observations that changed since the last write: one statement, none when nothing changed. */
  private async flush() {
    const changed: { deploymentId: string; observed: Record<string, unknown>; updatedAt: Date }[] = [];
    for (const [id, o] of this.observed) {
      const text = JSON.stringify(o);
      if (this.written.get(id) !== text)
        changed.push({ deploymentId: id, observed: o as unknown as Record<string, unknown>, updatedAt: new Date() });
    }
    if (changed.length === 0) return;
    try {
      await this.deps.db
        .insert(deploymentObservations)
        .values(changed)
        .onConflictDoUpdate({
          target: deploymentObservations.deploymentId,
          set: { observed: sql`excluded.observed`, updatedAt: sql`excluded.updated_at` },
        });
      for (const c of changed) this.written.set(c.deploymentId, JSON.stringify(c.observed));
    } catch (err) {
      // A deployment deleted meanwhile (its row gone: foreign key): forgotten on the next pass.
      this.deps.log.debug({ err }, 'reconciler: observations not written this time');
    }
  }

  private flushSoon() {
    if (this.flushTimer || this.stopped) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      void this.flush();
    }, 1000);
    this.flushTimer.unref();
  }

  /**
   * Converges one deployment, then writes what happened on the engine's side to the activity log: restored after
   * a removal or stop outside Core, and failed/unschedulable once per reason (retries do not repeat it).
   */
  private async convergeAndRecord(
    row: Row,
    bound: Record<string, string>,
    versions: Map<string, string>,
    mine: ObservedContainer[],
    calls: { listCalls: number; otherCalls: number },
  ) {
    if (this.operating.has(row.id)) return;
    const note: { restored?: string } = {};
    try {
      await this.converge(row, bound, versions, mine, calls, note);
    } finally {
      const now = this.observed.get(row.id);
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
    calls: { listCalls: number; otherCalls: number },
    note: { restored?: string },
  ) {
    const before = this.observed.get(row.id);
    const runtime = this.deps.runtime!;
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
      this.observe(row.id, { ...base, state: plan.state, reason: plan.reason });
      return;
    }
    const current =
      mine.find((c) => c.labels[LABEL.specHash] === plan.specHash) ??
      mine.find((c) => c.labels[LABEL.configHash] === plan.configHash);
    const stale = mine.filter((c) => c !== current);
    const removeStale = async (list: ObservedContainer[]) => {
      for (const c of list) {
        calls.otherCalls++;
        this.expectedExits.add(c.id);
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
      this.observe(row.id, { ...base, image: plan.image, state: 'failed', reason });
    };
    const waiting = () => {
      const f = this.failures.get(row.id);
      if (f && Date.now() < f.retryAt) {
        this.observe(row.id, {
          ...(this.observed.get(row.id) ?? base),
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
      if (current && (current.state === 'running' || current.state === 'restarting' || current.state === 'paused')) {
        calls.otherCalls++;
        this.expectedExits.add(current.id);
        try {
          await runtime.stop(current.id);
        } catch (err) {
          if (vanished(err)) return this.schedule(100);
          throw err;
        }
        const after = await runtime.inspect(current.id);
        this.observe(row.id, {
          ...base,
          image: plan.image,
          state: 'exited',
          reason: 'stopped',
          exit_code: after?.exitCode ?? null,
        });
      } else {
        this.observe(row.id, {
          ...base,
          image: plan.image,
          state: 'exited',
          reason: 'stopped',
          exit_code: current?.exitCode ?? null,
        });
      }
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
        this.observe(row.id, {
          ...base,
          image: plan.image,
          state: 'pulling',
          reason: null,
          ...(pull?.progress ? { pull: pull.progress } : {}),
        });
        return;
      }
      this.observe(row.id, { ...base, image: plan.image, state: 'starting', reason: null });
      let id: string;
      try {
        const values = await this.revealSecrets(plan.secretNames);
        const auth = plan.registryHost ? await this.registryAuth(plan.registryHost) : null;
        calls.otherCalls++;
        id = await runtime.create(plan.resolve(values, auth));
      } catch (err) {
        if (err instanceof RuntimeError && err.kind === 'conflict') {
          // A container of this name exists (created by a pass of another process a moment ago): adopt next pass.
          this.schedule(200);
          return;
        }
        if (err instanceof RuntimeError && err.kind !== 'engine_down') return failed(err.message);
        throw err;
      }
      this.deps.log.info({ deployment: row.name, container: plan.name, image: plan.image }, 'container created');
      // It ran before and nothing of it is left (no container with an older spec either): removed outside Core.
      if (stale.length === 0 && before && (before.state === 'running' || before.state === 'restarting'))
        note.restored = 'its container was removed outside Core: created again';
      try {
        calls.otherCalls++;
        await this.startContainer(id, calls);
      } catch (err) {
        if (vanished(err)) return this.schedule(100);
        if (err instanceof RuntimeError && err.kind !== 'engine_down') return failed(err.message);
        throw err;
      }
      this.failures.delete(row.id);
      await removeStale(stale);
      const seen = await runtime.inspect(id);
      calls.otherCalls++;
      if (seen)
        this.inspected.set(id, {
          state: seen.state,
          restarts: seen.restarts,
          oom: seen.oomKilled,
          exitCode: seen.exitCode,
          error: seen.error,
        });
      this.observeContainer(row.id, plan, seen ?? null, memoryOf(row));
      return;
    }

    await removeStale(stale);
    let seen: ObservedContainer | null = current;
    if (current.state === 'exited' || current.state === 'created' || current.state === 'dead') {
      const inspected = await this.inspect(current, calls);
      if (inspected?.oom && !this.failures.has(row.id)) {
        failed(exitWords(inspected.exitCode, true, memoryOf(row)));
        return;
      }
      if (waiting()) return;
      // A crash: the engine's restart policy brings it back; Core steps in only if it has not after a while.
      const died = this.lastDie.get(current.id);
      if (died && Date.now() - died.at < ENGINE_RESTART_GRACE_MS) {
        this.schedule(ENGINE_RESTART_GRACE_MS);
        this.observeContainer(row.id, plan, current, memoryOf(row));
        return;
      }
      // Stopped or removed outside Core while it should run: start it again.
      try {
        calls.otherCalls++;
        await this.startContainer(current.id, calls);
        this.inspected.delete(current.id);
        this.failures.delete(row.id);
        calls.otherCalls++;
        seen = await runtime.inspect(current.id);
        if (before?.state === 'running') note.restored = 'its container was stopped outside Core: started again';
      } catch (err) {
        if (vanished(err)) return this.schedule(100);
        if (err instanceof RuntimeError && err.kind !== 'engine_down') return failed(err.message);
        throw err;
      }
    } else if (current.state === 'restarting') {
      await this.inspect(current, calls);
    } else if (current.state === 'running') {
      if (!this.inspected.has(current.id)) await this.inspect(current, calls);
      this.failures.delete(row.id);
    }
    this.observeContainer(row.id, plan, seen, memoryOf(row));
  }

  /**
   * Starts a container. A host port "in use" is asked again a few times first: the engine may still hold it for a
   * container of this deployment that was just removed (Podman releases it a moment after answering).
   */
  private async startContainer(id: string, calls: { otherCalls: number }) {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.deps.runtime!.start(id);
        return;
      } catch (err) {
        if (!(err instanceof RuntimeError && err.kind === 'port_in_use') || attempt >= 4) throw err;
        await sleep(250 * attempt);
        calls.otherCalls++;
      }
    }
  }

  /** Inspects a container when its state changed since the last inspect (restarts, OOM, exit code). */
  private async inspect(c: ObservedContainer, calls: { otherCalls: number }) {
    const prev = this.inspected.get(c.id);
    if (prev && prev.state === c.state) return prev;
    calls.otherCalls++;
    const seen = await this.deps.runtime!.inspect(c.id);
    if (!seen) return null;
    const entry = {
      state: c.state,
      restarts: seen.restarts,
      oom: seen.oomKilled,
      exitCode: seen.exitCode,
      error: seen.error,
    };
    this.inspected.set(c.id, entry);
    return entry;
  }

  private observeContainer(
    id: string,
    plan: { image: string; specHash: string },
    c: ObservedContainer | null,
    memory: string,
  ) {
    if (!c) return;
    const info = this.inspected.get(c.id);
    const died = this.lastDie.get(c.id);
    // One crash and a restart is running again (restarts counts it); a second within the window is a loop.
    const looping = died !== undefined && died.count >= 2 && Date.now() - died.at < CRASH_WINDOW_MS;
    let state: Observation['state'] =
      c.state === 'running'
        ? 'running'
        : c.state === 'restarting'
          ? 'restarting'
          : c.state === 'created'
            ? 'starting'
            : 'exited';
    let reason = state === 'exited' && info?.error ? info.error : null;
    if (looping && (state === 'running' || state === 'restarting')) {
      // The engine restarts it (unless-stopped): shown as restarting, with why it ended.
      state = 'restarting';
      reason = `ended with ${exitWords(died.exitCode, died.oom || Boolean(info?.oom), memory)}; the engine restarted it`;
    } else if (state === 'exited' && (info?.oom || c.exitCode === 137))
      reason = exitWords(c.exitCode ?? info?.exitCode ?? null, Boolean(info?.oom), memory);
    this.observe(id, {
      state,
      reason,
      health: c.health,
      ports: c.ports.map((p) => ({ ...p, protocol: p.protocol === 'udp' ? 'udp' : 'tcp' })),
      restarts: info?.restarts ?? 0,
      exit_code: state === 'exited' ? (c.exitCode ?? info?.exitCode ?? null) : null,
      image: plan.image,
      needs_restart: c.labels[LABEL.specHash] !== plan.specHash,
    });
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
        await this.deps.runtime!.pull(image, auth, (p) => {
          entry.progress = p;
          for (const [id, o] of this.observed)
            if (o.state === 'pulling' && o.image === image) this.observed.set(id, { ...o, pull: p });
          this.flushSoon();
        });
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err);
        for (const [id, o] of this.observed)
          if (o.state === 'pulling' && o.image === image) {
            this.failures.set(id, {
              specHash: null,
              image,
              state: 'failed',
              reason,
              retryAt: Date.now() + PULL_RETRY_MS,
            });
          }
        // The failure is kept for the deployment that asked even before it was observed as pulling.
        const f = this.failures.get(deploymentId);
        if (!f)
          this.failures.set(deploymentId, {
            specHash: null,
            image,
            state: 'failed',
            reason,
            retryAt: Date.now() + RETRY_MS,
          });
        this.deps.log.warn({ image, error: reason }, 'image pull failed');
      } finally {
        this.pulls.delete(image);
        this.schedule(0);
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

  private subscribe() {
    const runtime = this.deps.runtime!;
    this.stopEvents = runtime.events(
      { [LABEL.instance]: this.deps.instanceId },
      (e) => {
        const deploymentId = e.labels[LABEL.deployment];
        const ended = e.action === 'oom' || e.action === 'die' || e.action === 'died';
        // Its restart count and exit changed: inspected again on the next pass.
        if (ended || e.action === 'restart') this.inspected.delete(e.containerId);
        // Stopped through the engine's API by someone else (a stop or kill comes before its die): not a crash,
        // and no restart policy brings it back — Core starts it again at once.
        if ((e.action === 'stop' || e.action === 'kill') && !this.expectedExits.has(e.containerId))
          this.stoppedOutside.add(e.containerId);
        if (e.action === 'start') this.stoppedOutside.delete(e.containerId);
        const byHand = this.stoppedOutside.has(e.containerId);
        if (ended && !byHand && !this.expectedExits.has(e.containerId) && e.exitCode !== 0) {
          const prev = this.lastDie.get(e.containerId);
          const recent = prev !== undefined && Date.now() - prev.at < CRASH_WINDOW_MS;
          this.lastDie.set(e.containerId, {
            at: Date.now(),
            count: recent ? prev.count + 1 : 1,
            exitCode: e.exitCode ?? prev?.exitCode ?? null,
            oom: e.action === 'oom' || (prev !== undefined && prev.oom && Date.now() - prev.at < 1000),
          });
        }
        if (deploymentId && ended && !byHand) void this.recordEngineEvent(deploymentId, e);
        // Events come in bursts (die, restart, init, start): one pass for the burst.
        this.schedule(300);
      },
      (err) => {
        this.stopEvents = null;
        if (!this.stopped) this.deps.log.debug({ err }, 'engine event stream ended: re-subscribing on the next pass');
      },
    );
  }

  private async recordEngineEvent(
    deploymentId: string,
    e: { action: string; containerId: string; exitCode: number | null },
  ) {
    if (e.action !== 'oom' && this.expectedExits.has(e.containerId)) return;
    if (e.action !== 'oom' && (e.exitCode === 0 || e.exitCode === null)) return;
    try {
      const [row] = await this.deps.db
        .select({ name: deployments.name, desired: deployments.desiredState })
        .from(deployments)
        .where(eq(deployments.id, deploymentId));
      if (!row || (row.desired === 'stopped' && e.action !== 'oom')) return;
      const last = this.crashEntries.get(deploymentId);
      if (last && Date.now() - last.at < CRASH_ENTRY_EVERY_MS) {
        last.suppressed++;
        return;
      }
      this.crashEntries.set(deploymentId, { at: Date.now(), suppressed: 0 });
      await recordActivity(this.deps.db, ENGINE_ACTOR, {
        action: e.action === 'oom' ? 'deployment.oom_killed' : 'deployment.crashed',
        target: { type: 'deployment', id: deploymentId, name: row.name },
        after: {
          container: e.containerId.slice(0, 12),
          ...(e.exitCode !== null ? { exit_code: e.exitCode } : {}),
          ...(last?.suppressed ? { crashes_since_last_entry: last.suppressed } : {}),
        },
      });
      this.deps.log.warn(
        { deployment: row.name, event: e.action, exit_code: e.exitCode },
        'container ended on the engine',
      );
    } catch (err) {
      this.deps.log.debug({ err }, 'engine event not recorded');
    }
  }

  // RuntimeControl: the operations that need the engine now.

  private requireUp() {
    if (this.status.state !== 'up') throw engineUnavailable(this.status);
    return this.deps.runtime!;
  }

  private async containersOf(deploymentId: string) {
    return this.engineCall(() =>
      this.requireUp().list({ [LABEL.instance]: this.deps.instanceId, [LABEL.deployment]: deploymentId }),
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
    const runtime = this.requireUp();
    const list = await this.containersOf(deploymentId);
    const needsNew = this.observed.get(deploymentId)?.needs_restart ?? false;
    const current = list.find((c) => c.state === 'running') ?? list[0];
    if (!current || needsNew) {
      // A rotated secret is only picked up by a new container: remove, and the pass creates it.
      for (const c of list) {
        this.expectedExits.add(c.id);
        await this.engineCall(() => runtime.remove(c.id));
      }
      this.operating.delete(deploymentId);
      await this.passNow();
      return;
    }
    this.expectedExits.add(current.id);
    await this.engineCall(() => runtime.restart(current.id));
    this.inspected.delete(current.id);
    this.schedule(0);
  }

  async remove(deploymentId: string, volumes: boolean) {
    return this.operatingOn(deploymentId, () => this.removeNow(deploymentId, volumes));
  }

  private async removeNow(deploymentId: string, volumes: boolean) {
    const runtime = this.requireUp();
    const labels = { [LABEL.instance]: this.deps.instanceId, [LABEL.deployment]: deploymentId };
    for (const c of await this.containersOf(deploymentId)) {
      this.expectedExits.add(c.id);
      await this.engineCall(() => runtime.remove(c.id));
    }
    if (volumes) {
      // A forced removal can answer before the engine lets go of the volumes (Podman): wait for the containers
      // to be gone, and give a volume still "in use" a few more tries.
      for (let i = 0; i < 50 && (await this.containersOf(deploymentId)).length > 0; i++) await sleep(100);
      for (let attempt = 1; ; attempt++) {
        try {
          await runtime.removeVolumes(labels);
          break;
        } catch (err) {
          if (!(err instanceof RuntimeError && err.kind === 'conflict') || attempt >= 10)
            return this.engineCall(() => Promise.reject(err));
          await sleep(200 * attempt);
        }
      }
    }
    this.forget(deploymentId);
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
    const stream = await this.engineCall(() => this.requireUp().logs(current.id, opts));
    return stream instanceof Readable ? stream : Readable.from(stream as AsyncIterable<Buffer>);
  }
}

/**
 * The reconciler's observation (domain/reconciler.ts): what the engine shows of each deployment, kept in memory
 * and written to deployment_observations only when it changes (one statement for all that changed, none when
 * nothing did). A container is inspected only when its state changed since the last inspect.
 */
import { sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { deploymentObservations } from '../db/schema';
import type { Logger } from '../log';
import type { ContainerState, InspectedContainer, ObservedContainer, Runtime } from '../runtime/runtime';
import { LABEL } from './containerSpec';
import { CRASH_WINDOW_MS, type EngineEvents } from './reconcilerEvents';
import type { Observation } from './runtimeControl';

/** Engine calls of a pass, counted as they are made (the bench and tests read them). */
export interface PassCalls {
  listCalls: number;
  otherCalls: number;
}

/** What the last inspect of a container said. */
interface Inspected {
  state: string;
  restarts: number;
  oom: boolean;
  exitCode: number | null;
  error: string;
}

/** The memory request of a deployment's template, in words ('' when none). */
export const memoryOf = (row: { templateSnapshot: Record<string, unknown> | null }) =>
  String(row.templateSnapshot?.memory_request ?? '');

/** Why a container ended, in words. Exit 137 is a SIGKILL: the OOM killer's when the engine says so, else likely. */
export function exitWords(code: number | null, oom: boolean, memory: string): string {
  if (oom) return `out of memory: killed by the kernel's OOM killer at its memory limit (${memory || 'none'})`;
  if (code === 137)
    return `exit code 137 (killed: out of memory at its memory limit ${memory || '(none)'}, or a SIGKILL)`;
  return code === null ? 'an unknown exit' : `exit code ${code}`;
}

/** A container's state as a deployment's observed state (any other reads as exited). */
const SHOWN_AS: Partial<Record<ContainerState, Observation['state']>> = {
  running: 'running',
  restarting: 'restarting',
  created: 'starting',
};

export class Observations {
  /** Last observation per deployment, as written to deployment_observations. */
  private readonly observed = new Map<string, Observation>();
  private readonly written = new Map<string, string>();
  private loaded = false;
  /** Per container id: restarts and OOM as last inspected (inspect only when it changes state). */
  private readonly inspected = new Map<string, Inspected>();
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly deps: {
      db: Db;
      log: Logger;
      runtime: Runtime;
      events: EngineEvents;
      /** The process is shutting down: no flush is scheduled any more. */
      stopped: () => boolean;
    },
  ) {}

  /** Reads the observations written before (once; again after unload()). */
  async load() {
    if (this.loaded) return;
    const rows = await this.deps.db.select().from(deploymentObservations);
    for (const r of rows) {
      const o = r.observed as unknown as Observation;
      this.observed.set(r.deploymentId, o);
      this.written.set(r.deploymentId, JSON.stringify(o));
    }
    this.loaded = true;
  }

  /** The next load() reads the database again (another process may have written meanwhile). */
  unload() {
    this.loaded = false;
  }

  get(deploymentId: string): Observation | undefined {
    return this.observed.get(deploymentId);
  }

  /** The deployments observed. */
  deploymentIds(): string[] {
    return [...this.observed.keys()];
  }

  forget(deploymentId: string) {
    this.observed.delete(deploymentId);
    this.written.delete(deploymentId);
  }

  /** Sets a deployment's observation; `since` moves only when the state changes. */
  observe(id: string, next: Omit<Observation, 'since'> & { since?: string }) {
    const prev = this.observed.get(id);
    const since = next.since ?? (prev && prev.state === next.state ? prev.since : new Date().toISOString());
    const o: Observation = { ...next, since };
    if (!o.pull) delete o.pull;
    this.observed.set(id, o);
  }

  /** The deployments shown pulling this image. */
  pulling(image: string): string[] {
    return [...this.observed].filter(([, o]) => o.state === 'pulling' && o.image === image).map(([id]) => id);
  }

  /** A pull's progress, shown on every deployment waiting for that image (written within a second). */
  pullProgress(image: string, pull: Observation['pull']) {
    for (const id of this.pulling(image)) this.observed.set(id, { ...this.observed.get(id)!, pull });
    this.flushSoon();
  }

  /** Inspects a container when its state changed since the last inspect (restarts, OOM, exit code). */
  async inspect(c: ObservedContainer, calls: PassCalls) {
    const prev = this.inspected.get(c.id);
    if (prev && prev.state === c.state) return prev;
    calls.otherCalls++;
    const seen = await this.deps.runtime.inspect(c.id);
    if (!seen) return null;
    return this.inspectedAs(c.id, c.state, seen);
  }

  /** Keeps what an inspect made elsewhere said (the container's state is the inspect's own). */
  remember(containerId: string, seen: InspectedContainer) {
    this.inspectedAs(containerId, seen.state, seen);
  }

  private inspectedAs(containerId: string, state: string, seen: InspectedContainer) {
    const entry = {
      state,
      restarts: seen.restarts,
      oom: seen.oomKilled,
      exitCode: seen.exitCode,
      error: seen.error,
    };
    this.inspected.set(containerId, entry);
    return entry;
  }

  hasInspected(containerId: string) {
    return this.inspected.has(containerId);
  }

  /** The container changed (restarted, ended): the next pass inspects it again. */
  inspectAgain(containerId: string) {
    this.inspected.delete(containerId);
  }

  /** Forgets the inspections of containers that are gone. */
  keepContainers(present: Set<string>) {
    for (const id of [...this.inspected.keys()]) if (!present.has(id)) this.inspected.delete(id);
  }

  /** Observes a deployment's container as the engine shows it (with its last inspect and crashes). */
  observeContainer(id: string, plan: { image: string; specHash: string }, c: ObservedContainer | null, memory: string) {
    if (!c) return;
    const info = this.inspected.get(c.id);
    const died = this.deps.events.lastDeath(c.id);
    // One crash and a restart is running again (restarts counts it); a second within the window is a loop.
    const looping = died !== undefined && died.count >= 2 && Date.now() - died.at < CRASH_WINDOW_MS;
    let state = SHOWN_AS[c.state] ?? 'exited';
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

  /** Writes the observations that changed since the last write: one statement, none when nothing changed. */
  async flush() {
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
    if (this.flushTimer || this.deps.stopped()) return;
    this.flushTimer = setTimeout(() => {
      this.flushTimer = null;
      void this.flush();
    }, 1000);
    this.flushTimer.unref();
  }

  /** No flush any more (shutdown). */
  stop() {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
  }
}

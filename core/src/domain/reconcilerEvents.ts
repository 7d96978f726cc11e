/**
 * The reconciler's events (domain/reconciler.ts): the engine's event stream, filtered by this instance's label,
 * turned into what a pass needs to know (a container that crashed, one stopped through the engine by someone
 * else, one Core itself ends) and into the activity log (a crash or an OOM kill, at most one entry per deployment
 * per minute). What is remembered per container lives as long as the container (keepContainers).
 *
 * A stop or removal by hand is told from a crash by what the engine does next: its restart policy (unless-stopped)
 * brings a crashed container back, never one stopped or removed. Docker reports a stop or kill before the die;
 * Podman 4.3 reports a stop by hand as a bare die (137 when the process ignores SIGTERM) followed by cleanup, and a
 * forced removal as die 137 then cleanup or remove, with a `stop` event only sometimes and in either order.
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { deployments } from '../db/schema';
import type { Logger } from '../log';
import type { Runtime, RuntimeEvent } from '../runtime/runtime';
import { ENGINE_ACTOR, recordActivity } from './activity';
import { LABEL } from './containerSpec';

/** A container that ended unexpectedly twice within this time and runs again reads as restarting (a crash loop). */
export const CRASH_WINDOW_MS = 30_000;
/** At most one crash entry per deployment in this time (a crash loop would flood the activity log). */
const CRASH_ENTRY_EVERY_MS = 60_000;
/**
 * How long after an unexpected exit the engine has to say what it does (restart it, or clean it up: stopped by hand).
 * No word within it counts as a crash, and Core then starts the container itself (reconcilerActions.ts): its own
 * start any earlier would be taken for the engine's restart, and a stop by hand for a crash. Podman's word comes
 * from a clean-up process it spawns, seconds late on a busy machine.
 */
export const ENGINE_WORD_MS = 15_000;
/** Core's own stop, restart or removal whose exit has not come within this time expects it no more. */
const EXPECT_MS = 60_000;
/** After an unexpected exit: the engine restarted it (a crash), or cleaned it up or removed it (stopped by hand). */
const RESTARTED = new Set(['restart', 'start']);
const NOT_RESTARTED = new Set(['cleanup', 'stop', 'kill', 'remove', 'destroy']);

/** The last unexpected exit of a container: `count` exits within CRASH_WINDOW_MS of each other. */
export interface Death {
  at: number;
  exitCode: number | null;
  oom: boolean;
  count: number;
}

export class EngineEvents {
  private stopEvents: (() => void) | null = null;
  /** The last unexpected exit of a container (from the event stream): a crash loop reads as restarting. */
  private readonly lastDie = new Map<string, Death>();
  /** Crash entries in the activity log: at most one per deployment per minute (a crash loop counts the rest). */
  private readonly crashEntries = new Map<string, { at: number; suppressed: number }>();
  /** Containers stopped or killed through the engine by someone else (their "die" is not a crash). */
  private readonly stoppedOutside = new Set<string>();
  /**
   * Containers Core itself stops, restarts or removes: their next "die" is not a crash. That die marks the entry
   * `exited`, and the container's next start ends it, so that a later crash counts again; an exit that never came
   * (a restart of a container that had ended) is expected no more after EXPECT_MS.
   */
  private readonly expectedExits = new Map<string, { at: number; exited: boolean }>();
  /** Unexpected non-zero exits waiting for the engine's next event on the container (RESTARTED or NOT_RESTARTED). */
  private readonly pending = new Map<
    string,
    { deploymentId: string | undefined; event: RuntimeEvent; before: Death | undefined; timer: NodeJS.Timeout }
  >();

  constructor(
    private readonly deps: {
      db: Db;
      log: Logger;
      runtime: Runtime;
      instanceId: string;
      /** The process is shutting down: a stream that ends is not worth a line. */
      stopped: () => boolean;
      /** A container ended or restarted: its restarts and exit are inspected again. */
      changed: (containerId: string) => void;
      /** Events come in bursts (die, restart, init, start): one pass for the burst. */
      burst: () => void;
    },
  ) {}

  /** Follows the engine's events unless already following them (a stream that ended is followed again). */
  follow() {
    if (this.stopEvents) return;
    this.stopEvents = this.deps.runtime.events(
      { [LABEL.instance]: this.deps.instanceId },
      (e) => {
        const id = e.containerId;
        const deploymentId = e.labels[LABEL.deployment];
        const exited = e.action === 'die' || e.action === 'died';
        // Its restart count and exit changed: inspected again on the next pass.
        if (exited || e.action === 'oom' || e.action === 'restart') this.deps.changed(id);
        this.verdict(id, e.action);
        const expected = this.expected(id);
        // Stopped through the engine's API by someone else (Docker: a stop or kill comes before its die): not a
        // crash, and no restart policy brings it back — Core starts it again at once.
        if ((e.action === 'stop' || e.action === 'kill') && !expected) this.stoppedOutside.add(id);
        if (e.action === 'start') {
          this.stoppedOutside.delete(id);
          if (expected?.exited) this.expectedExits.delete(id);
        }
        const byHand = this.stoppedOutside.has(id);
        const expectsExit = expected !== undefined && !expected.exited;
        if (exited && expectsExit) expected.exited = true;
        else if ((exited || e.action === 'oom') && !expectsExit && !byHand && e.exitCode !== 0) {
          // An exit still pending had been followed by a start (this one ran): it was a crash.
          if (exited) this.verdict(id, 'restart');
          const before = this.lastDie.get(id);
          this.died(id, e);
          // Counted now (the engine's restart is left to it), recorded once the engine has restarted it.
          if (exited)
            this.pending.set(id, {
              deploymentId,
              event: e,
              before,
              timer: setTimeout(() => this.verdict(id, 'restart'), ENGINE_WORD_MS).unref(),
            });
          else if (deploymentId) void this.record(deploymentId, e);
        }
        this.deps.burst();
      },
      (err) => {
        this.stopEvents = null;
        if (!this.deps.stopped())
          this.deps.log.debug({ err }, 'engine event stream ended: re-subscribing on the next pass');
      },
    );
  }

  /** Stops following (the engine is down, or Core shuts down); the next follow() subscribes again. */
  unfollow() {
    this.stopEvents?.();
    this.stopEvents = null;
    if (this.deps.stopped()) {
      for (const p of this.pending.values()) clearTimeout(p.timer);
      this.pending.clear();
    }
  }

  /** Core itself is about to stop, restart or remove this container: its next "die" is not a crash. */
  expectExit(containerId: string) {
    this.expectedExits.set(containerId, { at: Date.now(), exited: false });
  }

  /** Core's expectation for this container, if it holds. */
  private expected(containerId: string) {
    const x = this.expectedExits.get(containerId);
    if (x && !x.exited && Date.now() - x.at > EXPECT_MS) {
      this.expectedExits.delete(containerId);
      return undefined;
    }
    return x;
  }

  /** Counts an unexpected exit (a crash loop reads as restarting; Core leaves the restart to the engine). */
  private died(containerId: string, e: RuntimeEvent) {
    const prev = this.lastDie.get(containerId);
    const recent = prev !== undefined && Date.now() - prev.at < CRASH_WINDOW_MS;
    this.lastDie.set(containerId, {
      at: Date.now(),
      count: recent ? prev.count + 1 : 1,
      exitCode: e.exitCode ?? prev?.exitCode ?? null,
      oom: e.action === 'oom' || (prev !== undefined && prev.oom && Date.now() - prev.at < 1000),
    });
  }

  /** The engine's next event after an unexpected exit: a crash is recorded, a stop or removal by hand uncounted. */
  private verdict(containerId: string, action: string) {
    const p = this.pending.get(containerId);
    if (!p || !(RESTARTED.has(action) || NOT_RESTARTED.has(action))) return;
    clearTimeout(p.timer);
    this.pending.delete(containerId);
    if (RESTARTED.has(action)) {
      if (p.deploymentId) void this.record(p.deploymentId, p.event);
      return;
    }
    if (p.before) this.lastDie.set(containerId, p.before);
    else this.lastDie.delete(containerId);
    // Not the engine's to restart: the next pass starts it (or creates it) without waiting for the engine.
    this.deps.changed(containerId);
  }

  /** The container's last unexpected exit, if any. */
  lastDeath(containerId: string): Death | undefined {
    return this.lastDie.get(containerId);
  }

  /** Forgets what was remembered of containers that are gone. */
  keepContainers(present: Set<string>) {
    for (const id of [...this.lastDie.keys()]) if (!present.has(id)) this.lastDie.delete(id);
    for (const id of [...this.expectedExits.keys()]) if (!present.has(id)) this.expectedExits.delete(id);
    for (const id of [...this.stoppedOutside]) if (!present.has(id)) this.stoppedOutside.delete(id);
  }

  /** A crash or OOM kill of a deployment that should run, in the activity log (one entry per minute at most). */
  private async record(deploymentId: string, e: { action: string; containerId: string; exitCode: number | null }) {
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
}

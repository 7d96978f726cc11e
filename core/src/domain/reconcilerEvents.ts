/**
 * The reconciler's events (domain/reconciler.ts): the engine's event stream, filtered by this instance's label,
 * turned into what a pass needs to know (a container that crashed, one stopped through the engine by someone
 * else, one Core itself ends) and into the activity log (a crash or an OOM kill, at most one entry per deployment
 * per minute). What is remembered per container lives as long as the container (keepContainers).
 */
import { eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { deployments } from '../db/schema';
import type { Logger } from '../log';
import type { Runtime } from '../runtime/runtime';
import { ENGINE_ACTOR, recordActivity } from './activity';
import { LABEL } from './containerSpec';

/** A container that ended unexpectedly twice within this time and runs again reads as restarting (a crash loop). */
export const CRASH_WINDOW_MS = 30_000;
/** At most one crash entry per deployment in this time (a crash loop would flood the activity log). */
const CRASH_ENTRY_EVERY_MS = 60_000;

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
  /** Containers Core itself stops or removes: their "die" is not a crash. */
  private readonly expectedExits = new Set<string>();

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
        const deploymentId = e.labels[LABEL.deployment];
        const ended = e.action === 'oom' || e.action === 'die' || e.action === 'died';
        // Its restart count and exit changed: inspected again on the next pass.
        if (ended || e.action === 'restart') this.deps.changed(e.containerId);
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
        if (deploymentId && ended && !byHand) void this.record(deploymentId, e);
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
  }

  /** Core itself is about to stop or remove this container: its "die" is not a crash. */
  expectExit(containerId: string) {
    this.expectedExits.add(containerId);
  }

  /** The container's last unexpected exit, if any. */
  lastDeath(containerId: string): Death | undefined {
    return this.lastDie.get(containerId);
  }

  /** Forgets what was remembered of containers that are gone. */
  keepContainers(present: Set<string>) {
    for (const id of [...this.lastDie.keys()]) if (!present.has(id)) this.lastDie.delete(id);
    for (const set of [this.expectedExits, this.stoppedOutside])
      for (const id of [...set]) if (!present.has(id)) set.delete(id);
  }

  /** A crash or OOM kill of a deployment that should run, in the activity log (one entry per minute at most). */
  private async record(deploymentId: string, e: { action: string; containerId: string; exitCode: number | null }) {
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
}

/**
 * What the deployment operations need from the reconciler, and where they find it: the reconciler of a
 * database handle registers itself here (domain/reconciler.ts), so `startDeployment(db, …)` and every other
 * caller keep one signature whether or not an engine is configured. Without one (CORE_RUNTIME=none, the CLI,
 * tests without an engine) the operations keep the desired state only.
 */
import type { Readable } from 'node:stream';
import type { ObservedState } from '../../shared/observedStates';
import type { Db } from '../db/client';
import { ServiceError } from './errors';

// The observed states are written once, for the server and the web UI (core/shared).
export { OBSERVED_STATES, type ObservedState } from '../../shared/observedStates';

/** The last observation of a deployment (deployment_observations.observed); presented as `observed`. */
export interface Observation {
  state: ObservedState;
  reason: string | null;
  since: string;
  health: 'healthy' | 'unhealthy' | 'starting' | null;
  ports: { container_port: number; protocol: 'tcp' | 'udp'; host_ip: string; host_port: number }[];
  restarts: number;
  exit_code: number | null;
  image: string | null;
  needs_restart: boolean;
  pull?: { status: string; current_bytes: number; total_bytes: number };
}

export interface EngineStatus {
  /** none: CORE_RUNTIME=none (or no engine answered at start). */
  state: 'up' | 'down' | 'none';
  since: Date;
  /** "docker at unix:///…" — named in 503 answers and readiness. */
  description: string;
  /** The engine's last error while down. */
  error: string | null;
}

export interface RuntimeControl {
  engine(): EngineStatus;
  /** Asks for a pass soon (after a write); returns at once. */
  kick(): void;
  /** Restarts the container (re-creates it when a secret changed); throws unavailable when the engine is down. */
  restart(deploymentId: string): Promise<void>;
  /** Removes the deployment's containers (and volumes when asked); throws unavailable when the engine is down. */
  remove(deploymentId: string, volumes: boolean): Promise<void>;
  /** The container's output as text. */
  logs(deploymentId: string, opts: { tail: number; follow: boolean }): Promise<Readable>;
}

const controls = new WeakMap<Db, RuntimeControl>();

export function attachRuntime(db: Db, control: RuntimeControl): void {
  controls.set(db, control);
}

export function detachRuntime(db: Db): void {
  controls.delete(db);
}

export const runtimeOf = (db: Db): RuntimeControl | undefined => controls.get(db);

/** The 503 of calls that need the engine: names it and why. */
export function engineUnavailable(status: EngineStatus): ServiceError {
  return status.state === 'none'
    ? new ServiceError(
        'unavailable',
        'no container engine: Core keeps desired state only (CORE_RUNTIME=none). Start Docker or `podman system service`, set DOCKER_HOST, and restart Core',
      )
    : new ServiceError(
        'unavailable',
        `the container engine (${status.description}) is unreachable since ${status.since.toISOString()}${status.error ? `: ${status.error}` : ''}`,
      );
}

/** The engine this database's reconciler drives, or the 503 saying why there is none. */
export function requireRuntime(db: Db): RuntimeControl {
  const control = controls.get(db);
  if (!control) throw engineUnavailable({ state: 'none', since: new Date(), description: 'none', error: null });
  const status = control.engine();
  if (status.state !== 'up') throw engineUnavailable(status);
  return control;
}

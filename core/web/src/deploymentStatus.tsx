/** A deployment's observed state as a badge and in words (the list and the deployment page share them). */
import { useEffect, useState } from 'react';
import { OBSERVED_STATES as ALL_STATES } from '../../shared/observedStates';
import type { Deployment, Observed, ObservedState } from './hub';

type Tone = 'ok' | 'busy' | 'warn' | 'bad' | 'idle';

/** The states in the overview's order: the API's, with running first (what most deployments are). */
export const OBSERVED_STATES: readonly ObservedState[] = ['running', ...ALL_STATES.filter((s) => s !== 'running')];

/** A state's name alone (the overview counts by state; a deployment's badge says more). */
export function stateName(state: ObservedState): string {
  if (state === 'pulling') return 'Pulling image';
  if (state === 'template_missing') return 'Template missing';
  return state.charAt(0).toUpperCase() + state.slice(1);
}

export const toneOf = (state: ObservedState): Tone => TONE[state] ?? 'idle';

const TONE: Record<ObservedState, Tone> = {
  pending: 'busy',
  pulling: 'busy',
  starting: 'busy',
  running: 'ok',
  restarting: 'warn',
  exited: 'idle',
  failed: 'bad',
  unschedulable: 'bad',
  template_missing: 'warn',
  unknown: 'idle',
};

/** What a state means, for when the engine gave no reason of its own. */
const MEANING: Record<ObservedState, string> = {
  pending: 'Core has not created the container yet.',
  pulling: 'The engine is pulling the image.',
  starting: 'The container is starting.',
  running: 'The container is running.',
  restarting: 'The container stopped and the engine is restarting it.',
  exited: 'The container is not running.',
  failed: 'The deployment could not be started.',
  unschedulable: 'This host does not meet the template’s node selector.',
  template_missing: 'The template has left this instance’s catalog.',
  unknown: 'Core cannot see the container engine.',
};

export function pullPercent(observed: Observed): number | null {
  const p = observed.pull;
  if (!p || !(p.total_bytes > 0)) return null;
  return Math.max(0, Math.min(100, Math.floor((p.current_bytes / p.total_bytes) * 100)));
}

/** The badge's words: the state, plus what matters most about it (health, restarts, exit code, pull progress). */
export function stateLabel(d: Pick<Deployment, 'desired_state' | 'observed'>): string {
  const o = d.observed;
  switch (o.state) {
    case 'running':
      return o.health === 'healthy' || o.health === 'unhealthy' ? `Running, ${o.health}` : 'Running';
    case 'pulling': {
      const p = pullPercent(o);
      return p === null ? 'Pulling image' : `Pulling image ${p}%`;
    }
    case 'restarting':
      return `Restarting (${o.restarts} ${o.restarts === 1 ? 'restart' : 'restarts'})`;
    case 'exited':
      // Stopped on purpose reads as such; an exit nobody asked for shows its code.
      if (d.desired_state === 'stopped') return 'Stopped';
      return o.exit_code === null ? 'Exited' : `Exited (code ${o.exit_code})`;
    default:
      return stateName(o.state);
  }
}

export function stateTone(d: Pick<Deployment, 'desired_state' | 'observed'>): Tone {
  const o = d.observed;
  if (o.state === 'running' && o.health === 'unhealthy') return 'warn';
  if (o.state === 'exited' && d.desired_state === 'running' && o.exit_code !== 0) return 'bad';
  return TONE[o.state] ?? 'idle';
}

/** The reason in words: the engine's (or Core's) own, else what the state means. */
export function stateReason(d: Pick<Deployment, 'desired_state' | 'observed'>): string {
  if (d.observed.reason) return d.observed.reason;
  if (d.observed.state === 'exited' && d.desired_state === 'stopped') return 'Stopped as asked.';
  return MEANING[d.observed.state] ?? '';
}

export function StateBadge({ deployment }: { deployment: Pick<Deployment, 'desired_state' | 'observed'> }) {
  return (
    <span className={`state state-${stateTone(deployment)}`} data-state={deployment.observed.state}>
      {stateLabel(deployment)}
    </span>
  );
}

/** A published port as a browser address; an unspecified host address means this host, as the browser reaches it. */
export function portUrl(p: { host_ip: string; host_port: number }): string {
  const any = p.host_ip === '' || p.host_ip === '0.0.0.0' || p.host_ip === '::';
  const host = any ? location.hostname : p.host_ip;
  return `http://${host.includes(':') ? `[${host}]` : host}:${p.host_port}`;
}

/** "3 minutes ago" beside a date, so that "since" reads at a glance. */
export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return '';
  const seconds = Math.max(0, Math.round((now - new Date(iso).getTime()) / 1000));
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  if (seconds < 60) return rtf.format(-seconds, 'second');
  if (seconds < 3600) return rtf.format(-Math.floor(seconds / 60), 'minute');
  if (seconds < 86_400) return rtf.format(-Math.floor(seconds / 3600), 'hour');
  return rtf.format(-Math.floor(seconds / 86_400), 'day');
}

export function megabytes(bytes: number): string {
  return `${(bytes / 1_000_000).toFixed(bytes < 10_000_000 ? 1 : 0)} MB`;
}

/** The time, renewed every `ms`: "since 3 minutes ago" keeps true while the deployment's data stays the same. */
export function useNow(ms: number): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

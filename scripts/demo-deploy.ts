/**
 * The demo's deployment step (issue 33): when Core drives a container engine, one catalog template is deployed
 * and followed until it runs (its URL is printed) or stops trying (its reason is printed, in Core's words: on a
 * machine without a reachable registry that is the pull failure). Without an engine it prints how to enable one.
 * Never fails the demo: what happens on the engine is reported, not judged (`npm run demo -- --check` runs in CI,
 * where no registry answers).
 */

export const DEMO_DEPLOYMENT = { name: 'demo-web', template_slug: 'nginx' };

export const ENABLE_ENGINE =
  'To run them, start Docker, or Podman’s service (`podman system service --time=0 unix:///tmp/podman.sock`) and ' +
  'run the demo with DOCKER_HOST=unix:///tmp/podman.sock (CORE_RUNTIME=docker insists on an engine); see docs/core-runtime.md';

interface EngineStatus {
  state: 'up' | 'down' | 'none';
  description?: string;
  error?: string | null;
}

interface Observed {
  state: string;
  reason: string | null;
  ports: { container_port: number; protocol: string; host_ip: string; host_port: number }[];
  exit_code: number | null;
  pull?: { status: string; current_bytes: number; total_bytes: number };
}

interface Deployment {
  id: string;
  name: string;
  template_slug: string;
  desired_state: 'running' | 'stopped';
  observed: Observed;
}

export type DeployOutcome =
  | { kind: 'no_engine'; line: string }
  | { kind: 'running'; deployment: Deployment; url: string | null }
  | { kind: 'not_running'; deployment: Deployment; reason: string };

type Call = (p: string, method?: string, body?: unknown) => Promise<unknown>;

/** Core's word on its engine: /readyz names it (no credential needed), the overview too. */
async function engineStatus(coreUrl: string, call: Call): Promise<EngineStatus | null> {
  const ready = (await fetch(`${coreUrl}/readyz`)
    .then((r) => r.json())
    .catch(() => null)) as { engine?: EngineStatus } | null;
  if (ready?.engine?.state) return ready.engine;
  const overview = (await call('/api/v1/overview').catch(() => null)) as { engine?: EngineStatus } | null;
  return overview?.engine?.state ? overview.engine : null;
}

const SETTLED = new Set(['running', 'failed', 'unschedulable', 'template_missing', 'exited']);

/** A published TCP port as an address a browser on this machine opens. */
export function urlOf(d: Deployment): string | null {
  const p = d.observed.ports.find((x) => x.protocol === 'tcp');
  if (!p) return null;
  const host = p.host_ip === '0.0.0.0' || p.host_ip === '::' || p.host_ip === '' ? 'localhost' : p.host_ip;
  return `http://${host.includes(':') ? `[${host}]` : host}:${p.host_port}`;
}

function describe(o: Observed): string {
  if (o.state === 'pulling' && o.pull && o.pull.total_bytes > 0)
    return `pulling the image (${Math.floor((o.pull.current_bytes / o.pull.total_bytes) * 100)}%)`;
  if (o.state === 'exited') return `exited${o.exit_code === null ? '' : ` with code ${o.exit_code}`}`;
  return o.state;
}

export async function deployDemoTemplate(opts: {
  coreUrl: string;
  token: string;
  say: (line: string) => void;
  waitMs: number;
}): Promise<DeployOutcome> {
  const call: Call = async (p, method = 'GET', body) => {
    const res = await fetch(opts.coreUrl + p, {
      method,
      headers: {
        authorization: `Bearer ${opts.token}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };

  const engine = await engineStatus(opts.coreUrl, call);
  if (!engine || engine.state === 'none')
    return {
      kind: 'no_engine',
      line: `No container engine: Core records deployments without running them. ${ENABLE_ENGINE}`,
    };
  if (engine.state === 'down')
    return {
      kind: 'no_engine',
      line:
        `Core's container engine (${engine.description ?? 'DOCKER_HOST'}) does not answer` +
        `${engine.error ? ` (${engine.error})` : ''}: Core records deployments without running them. ${ENABLE_ENGINE}`,
    };

  // A later run finds the first run's deployment (kept in the demo's data) and follows it again.
  const { deployments } = (await call('/api/v1/deployments?limit=100')) as { deployments: Deployment[] };
  let d =
    deployments.find((x) => x.name === DEMO_DEPLOYMENT.name) ??
    ((await call('/api/v1/deployments', 'POST', DEMO_DEPLOYMENT)) as Deployment);
  if (d.desired_state !== 'running') d = (await call(`/api/v1/deployments/${d.id}/start`, 'POST')) as Deployment;
  opts.say(`deploying ${d.template_slug} as "${d.name}" on ${engine.description ?? 'the engine'}…`);

  const deadline = Date.now() + opts.waitMs;
  let last = '';
  for (;;) {
    d = (await call(`/api/v1/deployments/${d.id}`)) as Deployment;
    const now = describe(d.observed);
    if (now !== last) opts.say(`  ${d.name}: ${now}`);
    last = now;
    if (d.observed.state === 'running') return { kind: 'running', deployment: d, url: urlOf(d) };
    if (SETTLED.has(d.observed.state)) return { kind: 'not_running', deployment: d, reason: d.observed.reason ?? now };
    if (Date.now() > deadline)
      return {
        kind: 'not_running',
        deployment: d,
        reason: `still ${now} after ${Math.round(opts.waitMs / 1000)} s${d.observed.reason ? `: ${d.observed.reason}` : ''}`,
      };
    await new Promise((r) => setTimeout(r, 1000));
  }
}

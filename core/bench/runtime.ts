/**
 * What Core's reconciler costs on a real engine (issue 33): Core's real server (in process) on the engine the
 * engine tests use (CORE_TEST_ENGINE: `podman` by default, started here; or a DOCKER_HOST URL), the locally
 * imported test image, no registry.
 *
 *   1. N deployments (default 20) created at once through the REST API: the time until every one reads
 *      observed running, and until every one answers on its published port.
 *   2. Up to M deployments (default 200) running, then idle passes (nothing to change): each pass's wall time,
 *      the time spent waiting for the engine, Core's time (the rest: its database reads, matching, JSON), the
 *      process CPU, and the engine calls made — counted at the one door to the engine (runtime/metered.ts),
 *      which must be exactly one list call per pass. Target: Core's time ≤ 50 ms (median).
 *
 * Results are printed and written to core/bench/results/runtime.md.
 *
 *   npm run bench:core -- --runtime [--deployments 200] [--at-once 20] [--passes 20] [--database postgres://…]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { engineCallTotals } from '../src/metrics';
import { freshDatabase, type TestCore } from '../tests/helpers';
import { appTemplate, cleanUp, coreOnEngine, publishedUrl, syncCatalog } from '../tests/engine/coreOnEngine';
import { ENGINE_SETTING, ensureTestImages, startEngine, waitFor, waitUntilAnswers } from '../tests/engine/fixture';

const { values } = parseArgs({
  options: {
    deployments: { type: 'string', default: '200' },
    'at-once': { type: 'string', default: '20' },
    passes: { type: 'string', default: '20' },
    database: { type: 'string' },
    out: { type: 'string', default: path.join(import.meta.dirname, 'results', 'runtime.md') },
  },
});
const TOTAL = Number(values.deployments);
const AT_ONCE = Number(values['at-once']);
const PASSES = Number(values.passes);

const engine = await startEngine(ENGINE_SETTING ?? 'podman');
await ensureTestImages(engine.docker);
const db = await freshDatabase(values.database);
// The interval pass is pushed out of the way: the bench runs its passes itself (events still kick some).
const { t, admin, instance } = await coreOnEngine(engine, {
  runtime: { reconcileIntervalSeconds: 3600 },
  config: { logLevel: 'warn' },
  database: db,
});
const lines: string[] = [];
const say = (line = '') => {
  console.log(line);
  lines.push(line);
};
const loadAvg = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

type Listed = { id: string; observed: { state: string; ports: { host_ip: string; host_port: number }[] } };

async function listAll(core: TestCore) {
  const all: Listed[] = [];
  for (let page = 1; ; page++) {
    const res = await core.call('GET', `/api/v1/deployments?page=${page}&limit=100`, { token: admin });
    if (res.status !== 200) throw new Error(`list: ${res.status} ${JSON.stringify(res.body)}`);
    all.push(...res.body.deployments);
    if (all.length >= res.body.pagination.total) return all;
  }
}

async function create(names: string[], template: string) {
  const results = await Promise.all(
    names.map((name) =>
      t.call('POST', '/api/v1/deployments', { token: admin, body: { name, template_slug: template } }),
    ),
  );
  const refused = results.find((r) => r.status !== 201);
  if (refused) throw new Error(`create: ${refused.status} ${JSON.stringify(refused.body)}`);
  return results.map((r) => r.body.id as string);
}

/** Polls until `count` deployments read running; returns the ms since `since`. */
async function allRunning(count: number, since: number, timeoutMs: number) {
  await waitFor(
    async () => {
      const running = (await listAll(t)).filter((d) => d.observed.state === 'running').length;
      if (running < count) throw new Error(`${running} of ${count} running`);
    },
    { timeoutMs, intervalMs: 100, what: `${count} deployments running` },
  );
  return performance.now() - since;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (ms: number) => ms.toFixed(1);

try {
  say(`# Core's reconciler on a real engine`);
  say();
  say(
    `${new Date().toISOString().slice(0, 16)}Z, ` +
      (ENGINE_SETTING && ENGINE_SETTING !== 'podman'
        ? `the engine at ${ENGINE_SETTING}; `
        : "Debian's podman (its Docker-compatible service, runc); ") +
      `Core on ${t.core.database.kind}; ${os.cpus().length} cores, Node ${process.version}; load average at start ${loadAvg()}.`,
  );
  // Light containers for the bulk (no ports, no volume); the ones created at once publish a port and answer on it.
  await syncCatalog(t, [
    appTemplate('app'),
    appTemplate('light', { ports: [], volume_mounts: [], cpu_request: '100m', memory_request: '32Mi' }),
  ]);

  // 1. At once.
  const started = performance.now();
  const ids = await create(
    Array.from({ length: AT_ONCE }, (_, i) => `at-once-${i}`),
    'app',
  );
  const created = performance.now() - started;
  const runningMs = await allRunning(AT_ONCE, started, 300_000);
  const list = await listAll(t);
  await Promise.all(list.filter((d) => ids.includes(d.id)).map((d) => waitUntilAnswers(publishedUrl(d) + '/')));
  const answeringMs = performance.now() - started;
  say();
  say(`## ${AT_ONCE} deployments created at once (REST, concurrently), each publishing a port`);
  say();
  say('| step | ms since the first POST |\n|---|---|');
  say(`| all ${AT_ONCE} created (201) | ${fmt(created)} |`);
  say(`| all observed running | ${fmt(runningMs)} |`);
  say(`| all answering on their published port | ${fmt(answeringMs)} |`);

  // 2. The rest, in batches, then idle passes.
  const bulkStart = performance.now();
  for (let n = AT_ONCE; n < TOTAL; n += 20) {
    await create(
      Array.from({ length: Math.min(20, TOTAL - n) }, (_, i) => `bulk-${n + i}`),
      'light',
    );
  }
  const bulkMs = await allRunning(TOTAL, bulkStart, 1_800_000);
  // Settle: every container seen (and inspected once), observations written.
  for (let i = 0; i < 3; i++) await t.core.reconciler.passNow();
  await new Promise((r) => setTimeout(r, 2000));
  await t.core.reconciler.passNow();

  const rows: { wall: number; engine: number; core: number; cpu: number; calls: string }[] = [];
  for (let i = 0; i < PASSES; i++) {
    const before = await engineCallTotals();
    const cpu = process.cpuUsage();
    const t0 = performance.now();
    await t.core.reconciler.passNow();
    const wall = performance.now() - t0;
    const cpuMs = (() => {
      const u = process.cpuUsage(cpu);
      return (u.user + u.system) / 1000;
    })();
    const after = await engineCallTotals();
    let engineMs = 0;
    const calls: string[] = [];
    for (const [call, v] of Object.entries(after)) {
      const n = v.calls - (before[call]?.calls ?? 0);
      if (n > 0) calls.push(`${call} ${n}`);
      engineMs += (v.seconds - (before[call]?.seconds ?? 0)) * 1000;
    }
    rows.push({ wall, engine: engineMs, core: wall - engineMs, cpu: cpuMs, calls: calls.join(', ') || 'none' });
  }
  const onlyOneList = rows.every((r) => r.calls === 'list 1');
  const coreMedian = median(rows.map((r) => r.core));
  say();
  say(`## Idle passes over ${TOTAL} running deployments (nothing to change), ${PASSES} passes`);
  say();
  say(`(${TOTAL - AT_ONCE} more created in batches of 20 reached running in ${fmt(bulkMs)} ms.)`);
  say();
  say('| | median ms | max ms |\n|---|---|---|');
  for (const [name, key] of [
    ['pass, wall', 'wall'],
    ['waiting for the engine (its list call)', 'engine'],
    ["Core's time (wall − engine)", 'core'],
    ['process CPU during the pass', 'cpu'],
  ] as const)
    say(`| ${name} | ${fmt(median(rows.map((r) => r[key])))} | ${fmt(Math.max(...rows.map((r) => r[key])))} |`);
  say();
  say(
    `Engine calls per pass: ${[...new Set(rows.map((r) => r.calls))].join(' / ')} — ` +
      (onlyOneList ? 'exactly one list call in every pass.' : 'NOT one list call per pass.'),
  );
  say(
    `Target: Core's time ≤ 50 ms and one engine list call: ${coreMedian <= 50 && onlyOneList ? 'met' : 'NOT met'} ` +
      `(median ${fmt(coreMedian)} ms). Load average at end ${loadAvg()}.`,
  );
  fs.mkdirSync(path.dirname(values.out), { recursive: true });
  fs.writeFileSync(values.out, lines.join('\n') + '\n');
  console.log(`\nwritten to ${path.relative(process.cwd(), values.out)}`);
  if (!onlyOneList) process.exitCode = 1;
} finally {
  await t.stop();
  await cleanUp(engine, instance);
  await engine.close();
  await db.drop();
}

/**
 * `npm run bench` — the Hub's benchmark suite (see bench/README.md).
 *
 *   npm run bench                 full mode: 1,000 / 10,000 / 100,000 templates, 10 s per scenario
 *   npm run bench -- --short      short mode (CI): 1,000 templates, 2.5 s per scenario
 *   options: --build (rebuild .next first), --sizes 1000,100000, --duration SECONDS, --connections N
 *   npm run bench -- --fleet      the fleet simulation instead (bench/fleet.ts): 100,000 instances, PgBouncer, a replica
 *     --fleet-orgs N (100 keys each; default 1,000), --fleet-idle-intervals N (poll intervals without writes; default 1)
 *
 * One run: a fresh PostgreSQL database hub_bench_<random> (migrated by the Hub's own client, seeded with
 * SQL, real credentials), the production Hub (server/http/serve.ts, as `npm start` runs it) and the baseline server on it, load from this
 * process with autocannon, results in bench/results/latest.{json,md} (short mode: bench/results/tmp/).
 * Exits non-zero only when the bench itself cannot measure (setup failed, a server did not start, or a
 * scenario's answers were wrong); missed targets are reported, not failed. Every process and the database
 * it creates are removed at the end, also on failure or Ctrl-C.
 */
import { serveCommand } from '../scripts/serve-command.mjs';
import { execSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres, { type Sql } from 'postgres';
import { closeDatabase, getDatabase } from '../server/db/client';
import { makeAdminJwt, makeInstanceKeys, makeMcpSetup } from './credentials';
import { edgeScenarios, wireBytes, writeSameWorkManifest } from './edge';
import { explainAll } from './explain';
import { summarize, summaryMarkdown, withOriginalSources, type CpuTimes, type ProfiledWindow } from './profile';
import { cycle, median, mergeWindows, runLoad, type LoadResult, type RequestSpec } from './load';
import { measureMcp } from './mcp';
import { measureMisses, missScenarios } from './misses';
import { measurePaced } from './paced';
import {
  benchServerEnv,
  cpuTimes,
  freePort,
  killAllNow,
  nodeFlags,
  RssSampler,
  startChild,
  waitReady,
  type Server,
} from './processes';
import {
  evaluateTargets,
  markdown,
  readmeSection,
  type BenchReport,
  type McpResult,
  type Parity,
  type SameWorkPair,
  type ScenarioResult,
  type SizeResult,
} from './report';
import { plainDisagreements, plainSearchMix, plainSearchMixRate } from './plain-search';
import { buildSearchMix, searchMixCallers, searchMixMisses } from './search-mix';
import { bearer, checkParity, fetchJson, scenarios, type Ctx } from './scenarios';
import { ORGS, sampleBrands, samplePublicSlugs, seedAccountsAndCategories, seedTemplates } from './seed';
import { reloadConfig } from '../server/config';

const root = path.resolve(import.meta.dirname, '..');
const { values: argv } = parseArgs({
  options: {
    short: { type: 'boolean', default: false },
    build: { type: 'boolean', default: false },
    sizes: { type: 'string' },
    duration: { type: 'string' },
    connections: { type: 'string' },
    only: { type: 'string' },
    'keep-db': { type: 'string' },
    profile: { type: 'boolean', default: false },
    fleet: { type: 'boolean', default: false },
    'fleet-orgs': { type: 'string' },
    'fleet-idle-intervals': { type: 'string' },
  },
  strict: true,
});
if (argv.fleet) {
  // The fleet simulation (bench/fleet.ts): its own topology and results file; nothing below runs.
  const { FULL_FLEET, runFleet } = await import('./fleet');
  const whole = (flag: string, value: string | undefined, fallback: number) => {
    if (value === undefined) return fallback;
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 1) {
      console.error(`--${flag} takes a whole number of at least 1, got "${value}"`);
      process.exit(64);
    }
    return parsed;
  };
  const orgs = whole('fleet-orgs', argv['fleet-orgs'], FULL_FLEET.orgs);
  const idleIntervals = whole('fleet-idle-intervals', argv['fleet-idle-intervals'], FULL_FLEET.idleIntervals);
  await runFleet(
    orgs === FULL_FLEET.orgs && idleIntervals === FULL_FLEET.idleIntervals
      ? FULL_FLEET
      : { ...FULL_FLEET, orgs, idleIntervals },
  );
  process.exit(0);
}
/**
 * --only edge: the edge scenarios (against the bare server) and MCP only, one size, no cache-miss pass or
 * EXPLAIN: the quick loop for the serving-performance work (results in bench/results/tmp/, as short mode).
 * --only mcp: as edge, without the edge scenarios: the MCP runs alone.
 * --only misses: the cache-miss pass and EXPLAIN only, full-mode probes (results in bench/results/tmp/).
 */
const mcpOnly = argv.only === 'mcp';
const edgeOnly = argv.only === 'edge' || mcpOnly;
const missesOnly = argv.only === 'misses';
if (argv.only !== undefined && !edgeOnly && !missesOnly) {
  console.error('--only takes one value: edge, mcp or misses');
  process.exit(64);
}
const mode: 'full' | 'short' = argv.short || edgeOnly ? 'short' : 'full';
const sizes = argv.sizes
  ? argv.sizes.split(',').map((s) => Number(s.replace(/_/g, '')))
  : mode === 'short'
    ? [1_000]
    : [1_000, 10_000, 100_000];
const durationSec = argv.duration ? Number(argv.duration) : mode === 'short' ? 2.5 : 10;
const warmupSec = mode === 'short' ? 0.5 : 2;
const connections = argv.connections ? Number(argv.connections) : 32;
const keysPerOrg = mode === 'short' ? 4 : 20;
const searchProbeCount = mode === 'short' ? 100 : 300;
const missProbeCount = mode === 'short' ? 60 : 200;
const missDurationSec = Math.min(durationSec, 5);
/** Edge scenarios: the Hub and the same-work server alternate this many times; each measures durationSec in all. */
const SAME_WORK_ROUNDS = mode === 'short' ? 2 : 4;
const pairWindowSec = durationSec / SAME_WORK_ROUNDS;
if (sizes.some((n) => !Number.isInteger(n) || n < 100) || !(durationSec > 0) || !(connections > 0)) {
  console.error(
    'usage: npm run bench [-- --short] [--build] [--sizes 1000,10000,100000] [--duration 10] [--connections 32]',
  );
  process.exit(64);
}
const outDir = path.join(root, mode === 'full' && !missesOnly ? 'bench/results' : 'bench/results/tmp');
const logDir = path.join(root, 'bench/results/tmp/logs');
/**
 * --keep-db <name>: the run's database is <name>, kept at the end. When it exists already (a previous --keep-db run),
 * its organizations and templates are reused and only what a larger size adds is seeded (the 100,000 seed takes
 * minutes); credentials are made anew. A size smaller than what it holds is refused.
 */
const keepDb = argv['keep-db'];
if (keepDb !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(keepDb)) {
  console.error('--keep-db takes a database name: lower-case letters, digits and underscores');
  process.exit(64);
}
fs.mkdirSync(logDir, { recursive: true });

const log = (message: string) => console.error(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}`);

// ---------------------------------------------------------------- cleanup

const cleanups: (() => Promise<unknown>)[] = [];
let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const fn of cleanups.reverse()) {
      try {
        await fn();
      } catch (err) {
        console.error('[bench] cleanup:', (err as Error).message);
      }
    }
    killAllNow();
  })();
  return cleaning;
}
process.on('exit', killAllNow);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  });
}

// ---------------------------------------------------------------- build

function newestSources(since: number): string[] {
  const newer: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const rel = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(rel);
      else if (/\.(ts|tsx|mjs|css)$/.test(entry.name) && fs.statSync(path.join(root, rel)).mtimeMs > since)
        newer.push(rel);
    }
  };
  for (const dir of ['app', 'server']) if (fs.existsSync(path.join(root, dir))) walk(dir);
  return newer;
}

function ensureBuild() {
  const buildIdFile = path.join(root, '.next/BUILD_ID');
  if (argv.build || !fs.existsSync(buildIdFile)) {
    log(argv.build ? 'next build (--build)…' : 'no production build (.next/BUILD_ID): next build…');
    // One build at a time on this machine; a build finished by someone else while we waited is used as is.
    const script = argv.build ? 'npx next build' : 'test -f .next/BUILD_ID || npx next build';
    const result = spawnSync('flock', ['/tmp/hub-build.lock', 'sh', '-c', script], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
      env: { ...process.env, NEXT_TELEMETRY_DISABLED: '1' },
    });
    if (result.status !== 0) throw new Error(`next build failed (exit ${result.status})`);
  }
  const stat = fs.statSync(buildIdFile);
  return {
    buildId: fs.readFileSync(buildIdFile, 'utf8').trim(),
    builtAt: stat.mtime.toISOString(),
    staleSources: newestSources(stat.mtimeMs),
  };
}

// ---------------------------------------------------------------- servers

async function startHub(port: number, env: NodeJS.ProcessEnv, label: string, profileDir?: string): Promise<Server> {
  // The production server of `npm start` (server/http/serve.ts).
  const [command, served] = serveCommand(root);
  // --profile: V8's CPU profile of the whole process, written when it exits (bench/profile.ts reads it).
  // BENCH_HUB_NODE_OPTIONS: extra Node flags for the Hub (e.g. `--heap-prof --heap-prof-dir=/tmp/h`), as the fleet's.
  const extra = nodeFlags(process.env.BENCH_HUB_NODE_OPTIONS);
  const args = [...extra, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), ...served];
  const child = startChild(`hub (${label})`, command, args, {
    cwd: root,
    env,
    log: path.join(logDir, `hub-${label}.log`),
  });
  cleanups.push(() => child.stop());
  const base = `http://127.0.0.1:${port}`;
  const rss = new RssSampler(child.proc.pid!).start();
  await waitReady(child, `${base}/api/v1/catalog/categories`, 120_000);
  return { child, base, rss };
}

async function startNodeServer(
  name: string,
  script: string,
  port: number,
  env: NodeJS.ProcessEnv,
  readyPath: string,
  init: RequestInit = {},
  status = 200,
): Promise<Server> {
  const child = startChild(name, process.execPath, [path.join(root, script)], {
    cwd: root,
    env: { ...env, PORT: String(port) },
    log: path.join(logDir, `${name}.log`),
  });
  cleanups.push(() => child.stop());
  const base = `http://127.0.0.1:${port}`;
  await waitReady(child, `${base}${readyPath}`, 30_000, init, status);
  return { child, base };
}

// ---------------------------------------------------------------- main

async function serverVersion(pg: Sql) {
  const [row] = await pg<{ v: string }[]>`select current_setting('server_version') as v`;
  return `PostgreSQL ${row!.v}`;
}

function git(cmd: string) {
  try {
    return execSync(`git ${cmd}`, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

async function main(): Promise<number> {
  const started = new Date();
  const loadavgStart = os.loadavg();
  const build = ensureBuild();
  if (build.staleSources.length)
    log(
      `warning: the production build is older than ${build.staleSources.length} source files; --build measures the current code`,
    );

  // Database
  const serverUrl = process.env.BENCH_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const dbName = keepDb ?? `hub_bench_${randomBytes(5).toString('hex')}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  const reused = keepDb !== undefined && (await admin`select 1 from pg_database where datname = ${keepDb}`).length > 0;
  if (!reused) await admin.unsafe(`create database ${dbName}`);
  cleanups.push(async () => {
    if (!keepDb) await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end({ timeout: 2 });
    log(keepDb ? `kept database ${dbName} (--keep-db)` : `dropped database ${dbName}`);
  });
  const dbUrl = new URL(serverUrl);
  dbUrl.pathname = `/${dbName}`;
  log(`database ${dbName}`);

  const [hubPort, baselinePort, upstreamPort, barePort, sameWorkPort, sameWorkProxyPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const hubUrl = `http://127.0.0.1:${hubPort}`;
  // The Hub's modules used for setup read these (migrations, keys, JWT issuer).
  process.env.DATABASE_URL = dbUrl.toString();
  process.env.HUB_URL = hubUrl;
  process.env.HUB_SECRET = 'hub-bench-master-secret'; // the same as the Hub's (serverEnv): keys sealed here open there
  reloadConfig();
  await getDatabase(); // applies the migrations
  cleanups.push(() => closeDatabase());
  const pg = postgres(dbUrl.toString(), { max: 4, onnotice: () => {} });
  /**
   * The baseline's queries still running when its load stopped are cancelled, until none is left (its pool starts
   * the next queued query when one is cancelled; at most a minute). At 100,000 templates its scans take seconds, 32
   * at a time, and went on for the next scenario's Hub run: a slower machine measured the Hub there at a tenth of
   * its speed while the Hub answered each request in 0.1 ms — the cores were PostgreSQL's.
   */
  const quietBaseline = async () => {
    for (const until = Date.now() + 60_000; Date.now() < until;) {
      const [row] = await pg<{ n: number }[]>`
        select count(pg_cancel_backend(pid))::int as n from pg_stat_activity
         where application_name = 'bench-baseline' and state = 'active' and datname = current_database()`;
      if (!row || row.n === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  cleanups.push(() => pg.end({ timeout: 2 }));

  const orgs = reused
    ? await Promise.all(
        ORGS.map(async ({ slug, grants }) => {
          const [row] = await pg<{ id: string }[]>`select id from organizations where slug = ${slug}`;
          if (!row)
            throw new Error(`--keep-db ${dbName}: organization ${slug} is missing (drop the database to seed anew)`);
          return { id: row.id, slug, grants };
        }),
      )
    : await seedAccountsAndCategories(pg);
  const keys = await makeInstanceKeys(orgs, keysPerOrg);
  const ttl = 6 * 3600;
  const adminJwt = await makeAdminJwt(ttl);
  const acme = orgs[0]!;
  const mcpKey = keys.find((k) => k.orgId === acme.id)!;
  const mcpSetup = await makeMcpSetup(pg, root, acme, mcpKey.id, `http://127.0.0.1:${upstreamPort}/mcp`, ttl);
  const notes: string[] = [];
  const broken: string[] = [];

  const serverEnv = benchServerEnv({ DATABASE_URL: dbUrl.toString(), HUB_URL: hubUrl });

  let upstream: Server | null = null;
  if (!('unavailable' in mcpSetup)) {
    upstream = await startNodeServer(
      'mcp-upstream',
      'bench/mcp-upstream.mjs',
      upstreamPort,
      {
        ...serverEnv,
        MCP_JWKS: JSON.stringify(mcpSetup.jwks),
        MCP_ISSUER: hubUrl,
        MCP_AUDIENCE: mcpSetup.instanceKeyId,
      },
      '/mcp',
      {},
      401,
    );
  }
  // The same-work proxy (issue 36) on the same upstream: /mcp is measured against it.
  const sameWorkProxy =
    'unavailable' in mcpSetup
      ? null
      : await startNodeServer(
          'same-work-proxy',
          'bench/same-work-proxy.mjs',
          sameWorkProxyPort,
          {
            ...serverEnv,
            SAMEWORK_SIGNING_KEY: mcpSetup.signingKey.pem,
            SAMEWORK_KID: mcpSetup.signingKey.kid,
            SAMEWORK_LOG: path.join(logDir, 'same-work-proxy-access.log'),
          },
          '/mcp',
          {},
          401,
        );

  const sizeResults: SizeResult[] = [];
  let parity: Parity[] = [];
  let mcp: McpResult = { notApplicable: 'unavailable' in mcpSetup ? mcpSetup.unavailable : undefined, runs: [] };
  let seeded = reused ? Number((await pg<{ n: number }[]>`select count(*)::int as n from templates`)[0]!.n) : 0;
  if (reused) log(`reusing database ${dbName}: ${seeded.toLocaleString('en-US')} templates`);
  if (seeded > sizes[0]!) throw new Error(`--keep-db ${dbName} holds ${seeded} templates, more than the first size`);
  let hubPeak = 0;

  for (const [index, size] of sizes.entries()) {
    const seedStart = Date.now();
    log(`seeding templates ${seeded + 1}..${size}`);
    await seedTemplates(pg, orgs, seeded + 1, size);
    // As autovacuum would after a bulk load: statistics, and the visibility map that index-only scans need.
    await pg`vacuum analyze`;
    seeded = size;
    const seedSeconds = (Date.now() - seedStart) / 1000;
    const since = new Date().toISOString();

    log(`starting the Hub (production server) and the baseline on ${size.toLocaleString('en-US')} templates`);
    const profileDir = argv.profile ? path.join(logDir, `profile-${size}`) : undefined;
    if (profileDir) fs.rmSync(profileDir, { recursive: true, force: true });
    const hub = await startHub(hubPort, { ...serverEnv, PORT: String(hubPort) }, `${size}`, profileDir);
    const profiled: ProfiledWindow[] = [];
    const baseline = await startNodeServer(
      `baseline-${size}`,
      'bench/baseline-server.mjs',
      baselinePort,
      serverEnv,
      '/healthz',
    );

    // Context: admin endpoint, ETags per organization.
    const adminProbe = await fetchJson(hub.base, { path: '/api/v1/admin/templates', headers: bearer(adminJwt) });
    const ctx: Ctx = {
      hubBase: hub.base,
      keys,
      orgs,
      adminJwt,
      slugs: await samplePublicSlugs(pg, 500),
      since,
      etags: new Map(),
      adminPath: '/api/v1/admin/templates',
    };
    if (adminProbe.status === 404) {
      ctx.adminPath = '/api/v1/catalog/templates';
      ctx.adminNote =
        'GET /api/v1/admin/templates does not exist in this Hub: measured the admin JWT on /api/v1/catalog/templates instead';
    } else if (adminProbe.status !== 200) {
      broken.push(
        `admin template list answered ${adminProbe.status}: ${JSON.stringify(adminProbe.body).slice(0, 200)}`,
      );
    }
    const acmeKeys = keys.filter((k) => k.orgId === acme.id);
    const defs =
      missesOnly || mcpOnly ? [] : [...(edgeOnly ? [] : scenarios(ctx, hub.base)), ...edgeScenarios(ctx, acmeKeys)];

    // The bare server serves the bytes of the Hub's own answer to acme's list request.
    const listAnswer = await fetch(`${hub.base}/api/v1/catalog/templates`, {
      headers: { ...bearer(acmeKeys[0]!.secret), 'accept-encoding': 'identity' },
    });
    const bareBodyFile = path.join(logDir, `bare-body-${size}.json`);
    fs.writeFileSync(bareBodyFile, Buffer.from(await listAnswer.arrayBuffer()));
    const bare = await startNodeServer(
      `bare-${size}`,
      'bench/bare-server.mjs',
      barePort,
      { ...serverEnv, BARE_BODY_FILE: bareBodyFile, BARE_ETAG: listAnswer.headers.get('etag') ?? '"bare"' },
      '/',
    );
    // The same-work server (issue 36) serves the Hub's own answers to the edge scenarios' requests. Started when
    // the first edge scenario is measured: the scenarios before it (downloads) change the lists' ETags.
    let sameWork: Server | undefined;
    const sameWorkServer = async (): Promise<Server> => {
      if (sameWork) return sameWork;
      const sameWorkAnswers = path.join(logDir, `same-work-answers-${size}.json`);
      const edgeUpdatesPath = `/api/v1/catalog/templates/updates?since=${encodeURIComponent(ctx.since)}`;
      await writeSameWorkManifest(
        hub.base,
        [
          { target: edgeUpdatesPath, org: acme.id, authorization: `Bearer ${acmeKeys[0]!.secret}` },
          { target: '/api/v1/catalog/templates', org: acme.id, authorization: `Bearer ${acmeKeys[0]!.secret}` },
          { target: '/api/v1/catalog/templates', org: null },
        ],
        sameWorkAnswers,
      );
      sameWork = await startNodeServer(
        `same-work-${size}`,
        'bench/same-work-server.mjs',
        sameWorkPort,
        {
          ...serverEnv,
          SAMEWORK_ANSWERS: sameWorkAnswers,
          SAMEWORK_LOG: path.join(logDir, `same-work-access-${size}.log`),
        },
        '/api/v1/catalog/templates',
      );
      return sameWork;
    };
    const identity = await wireBytes(hub.base, '/api/v1/catalog/templates', {
      ...bearer(acmeKeys[0]!.secret),
      'accept-encoding': 'identity',
    });
    const compressed = await wireBytes(hub.base, '/api/v1/catalog/templates', {
      ...bearer(acmeKeys[0]!.secret),
      'accept-encoding': 'gzip, br',
    });
    const listBytes = { identity: identity.bytes, compressed: compressed.bytes, encoding: compressed.encoding };
    log(`list page body: ${identity.bytes} bytes identity, ${compressed.bytes} bytes ${compressed.encoding}`);

    // Warm every route on both servers (first requests compile and load modules), then check bodies match.
    for (const d of defs) {
      for (let i = 0; i < 5; i++) {
        await fetchJson(hub.base, d.hub());
        await fetchJson(baseline.base, d.baseline());
      }
    }
    if (index === 0) {
      parity = await checkParity(defs, hub, baseline);
      for (const p of parity) if (!p.ok) log(`parity: ${p.scenario} differs: ${p.detail}`);
    }

    const results: ScenarioResult[] = [];
    const edgeExtra = new Map<string, Pick<ScenarioResult, 'sameWork' | 'pairs' | 'cpuUs'>>();
    hub.rss!.window();
    for (const d of defs) {
      const notApplicable = await d.prepare?.();
      if (notApplicable) {
        log(`${d.title}: not applicable (${notApplicable})`);
        results.push({
          id: d.id,
          title: d.title,
          request: d.request,
          hub: null,
          baseline: null,
          notApplicable,
          note: d.note,
        });
        continue;
      }
      const cpu = { last: NaN, split: { userUs: NaN, systemUs: NaN } };
      /** One measured window of `seconds` on a warm server: its result and the server's CPU in it (user, system µs). */
      const loadWindow = async (
        server: Server,
        next: () => RequestSpec,
        expect: number[],
        requests: RequestSpec[] | undefined,
        seconds: number,
      ): Promise<[LoadResult, CpuTimes]> => {
        await new Promise((r) => setTimeout(r, 300));
        const before = cpuTimes(server.child.proc.pid!);
        const result = await runLoad({ base: server.base, connections, durationSec: seconds, next, requests, expect });
        const after = cpuTimes(server.child.proc.pid!);
        return [result, { userUs: after.userUs - before.userUs, systemUs: after.systemUs - before.systemUs }];
      };
      const measure = async (
        server: Server,
        next: () => RequestSpec,
        expect: number[],
        requests?: RequestSpec[],
        used?: { last: number; split: CpuTimes },
      ) => {
        await runLoad({ base: server.base, connections, durationSec: warmupSec, next, requests, expect });
        const [result, split] = await loadWindow(server, next, expect, requests, durationSec);
        if (used) {
          used.split = split;
          used.last = split.userUs + split.systemUs;
        }
        return result;
      };
      hub.rss!.window();
      const fromUs = Number(process.hrtime.bigint() / 1000n);
      const h = await measure(hub, d.hub, d.expectHub, d.fixed?.hub, cpu);
      // The measured run only (its warm-up is the first warmupSec + 0.3 s of the window).
      if (profileDir)
        profiled.push({
          id: d.id,
          title: d.title,
          fromUs: fromUs + (warmupSec + 0.3) * 1e6,
          toUs: Number(process.hrtime.bigint() / 1000n),
          requests: h.requests,
          cpu: cpu.split,
        });
      const rssPeakBytes = hub.rss!.window();
      const hubCpuUs = cpu.last;
      const b = await measure(
        d.againstBare ? bare : baseline,
        d.baseline,
        d.againstBare ? d.expectHub : [200],
        d.fixed?.baseline,
        cpu,
      );
      if (d.againstBare) {
        const [hubPer, barePer] = [hubCpuUs / h.requests, cpu.last / b.requests];
        log(
          `${d.title}: CPU per request: Hub ${hubPer.toFixed(1)} µs, bare server ${barePer.toFixed(1)} µs (CPU-bound ratio ${(barePer / hubPer).toFixed(2)}×)`,
        );
        cpuPerRequest.push({ size, id: d.id, title: d.title, hubUs: hubPer, bareUs: barePer });
        // The same-work server with the Hub's own requests (issue 36), in windows alternating with the Hub's: this
        // machine's speed drifts by a third within a minute, so the ratio is taken per pair of adjacent windows
        // (the report gives their median), not from two runs 20 s apart.
        const same = await sameWorkServer();
        await runLoad({
          base: same.base,
          connections,
          durationSec: warmupSec,
          next: d.hub,
          requests: d.fixed?.hub,
          expect: d.expectHub,
        });
        const pairs: SameWorkPair[] = [];
        const windows: LoadResult[] = [];
        for (let round = 0; round < SAME_WORK_ROUNDS; round++) {
          const [hw, hubCpu] = await loadWindow(hub, d.hub, d.expectHub, d.fixed?.hub, pairWindowSec);
          const [ww, sameCpu] = await loadWindow(same, d.hub, d.expectHub, d.fixed?.hub, pairWindowSec);
          windows.push(ww);
          pairs.push({
            hub: hw.rps,
            sameWork: ww.rps,
            hubCpuUs: (hubCpu.userUs + hubCpu.systemUs) / hw.requests,
            sameWorkCpuUs: (sameCpu.userUs + sameCpu.systemUs) / ww.requests,
          });
        }
        const w = mergeWindows(windows);
        const sameWorkPer = median(pairs.map((p) => p.sameWorkCpuUs));
        log(
          `${d.title}: same-work server ${w.rps.toFixed(0)} req/s p50 ${w.p50.toFixed(2)} ms, CPU ${sameWorkPer.toFixed(1)} µs ` +
            `(Hub ÷ same-work, ${SAME_WORK_ROUNDS} alternating pairs: ${pairs.map((p) => (p.hub / p.sameWork).toFixed(2)).join(', ')})`,
        );
        if (w.unexpected > Math.max(0, w.requests * 0.01))
          broken.push(`${d.title} at ${size} templates: the same-work server answered ${JSON.stringify(w.statuses)}`);
        edgeExtra.set(d.id, { sameWork: w, pairs, cpuUs: { hub: hubPer, bare: barePer, sameWork: sameWorkPer } });
      } else await quietBaseline();
      log(
        `${d.title}: Hub ${h.rps.toFixed(0)} req/s p50 ${h.p50.toFixed(2)} p99 ${h.p99.toFixed(2)} ms | ` +
          `baseline ${b.rps.toFixed(0)} req/s p50 ${b.p50.toFixed(2)} p99 ${b.p99.toFixed(2)} ms | ` +
          `RSS ${(rssPeakBytes / 1048576).toFixed(0)} MB`,
      );
      for (const [who, r] of [
        ['Hub', h],
        [d.againstBare ? 'bare server' : 'baseline', b],
      ] as const) {
        // Wrong answers or failed connections make the numbers meaningless; slowness (even no request
        // finished within the run) is a result, reported as such.
        if (r.unexpected > Math.max(0, r.requests * 0.01)) {
          broken.push(
            `${d.title} at ${size} templates: ${who} answered ${JSON.stringify(r.statuses)} (${r.errors - r.timeouts} connection errors)`,
          );
        } else if (r.requests === 0) {
          notes.push(
            `${d.title} at ${size.toLocaleString('en-US')} templates: no ${who} request finished within ${durationSec} s (${connections} connections).`,
          );
        }
      }
      results.push({
        id: d.id,
        title: d.title,
        request: d.request,
        hub: { ...h, rssPeakBytes },
        baseline: b,
        note: d.note,
        ...(d.againstBare ? { againstBare: true } : {}),
        ...edgeExtra.get(d.id),
      });
    }

    // The keyed 304 at one Hub's share of the fleet's pace, Hub and same-work server (bench/paced.ts).
    const keyed304 = defs.find((d) => d.id === 'edge-304')?.fixed?.hub;
    const paced =
      index === 0 && sameWork && keyed304?.length
        ? await measurePaced({ hub, sameWork }, keyed304, mode === 'short' ? 5 : 20, log)
        : undefined;

    // Search latency: one connection, a different product-name search per request (no answer is reused).
    const brands = await sampleBrands(pg, acme.id, searchProbeCount);
    const probe = (server: Server) => {
      const brand = cycle(brands);
      const k = cycle(acmeKeys);
      return runLoad({
        base: server.base,
        connections: 1,
        amount: brands.length,
        next: () => ({ path: `/api/v1/catalog/templates?search=${brand()}`, headers: bearer(k().secret) }),
        expect: [200],
      });
    };
    const searchProbe = missesOnly
      ? null
      : { searches: brands.length, hub: await probe(hub), baseline: await probe(baseline) };
    if (searchProbe)
      log(
        `search probe: Hub p50 ${searchProbe.hub.p50.toFixed(2)} ms, baseline p50 ${searchProbe.baseline.p50.toFixed(2)} ms`,
      );

    // MCP: once (it does not depend on the catalog size).
    if (index === 0 && upstream && !missesOnly && !('unavailable' in mcpSetup)) {
      mcp = await measureMcp(
        {
          connections,
          warmupSec,
          durationSec,
          sequentialCalls: mode === 'short' ? 100 : 300,
          rounds: SAME_WORK_ROUNDS,
          log,
        },
        hub,
        upstream,
        sameWorkProxy,
        mcpSetup,
        broken,
        profileDir ? (w) => profiled.push(w) : undefined,
      );
    }

    // Cache misses: one connection (a request's own cost), then full concurrency (throughput).
    const [visibleRow] = await pg<{ n: number }[]>`
      select count(*)::int as n from templates t join categories c on c.id = t.category_id
       where t.org_id = ${acme.id} or (t.is_public and not c.is_private)
          or (c.is_private and exists (select 1 from access_grants g where g.org_id = ${acme.id} and g.category_id = c.id))`;
    const visible = visibleRow!.n;
    // The stamp of the 10th newest public template: every size answers with about ten changes (an hour before the
    // seed held none at 1,000 and 10,000 templates, answered from memory, and one or two at 100,000).
    const [recentRow] = await pg<{ at: string }[]>`
      select to_char(t.updated_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as at
        from templates t join categories c on c.id = t.category_id
       where t.is_public and not c.is_private
       order by t.updated_at desc offset 9 limit 1`;
    const recent = recentRow!.at;
    const rss = hub.rss!.stop();
    await hub.child.stop();
    if (profileDir) writeProfileSummary(profileDir, size, profiled);
    hubPeak = Math.max(hubPeak, rss.peakRssBytes);
    const missHub = await startHub(
      hubPort,
      { ...serverEnv, PORT: String(hubPort), HUB_RESPONSE_CACHE_MB: '0' },
      `${size}-no-cache`,
    );
    const mix = edgeOnly ? null : await buildSearchMix(pg);
    const misses = await measureMisses(
      missHub.base,
      mix
        ? [
            ...missScenarios(ctx, acmeKeys, brands, Math.max(1, Math.ceil(visible / 50)), recent),
            ...searchMixMisses(mix, keys),
          ]
        : [],
      { probes: missProbeCount, connections, durationSec: missDurationSec, size },
      broken,
      log,
    );
    // The mix's one-connection URLs again, as one plain SQL statement each: the database's part of the work.
    const mixUrls: Record<string, string[]> = mix
      ? { 'miss-search-mix': mix.urls, 'miss-search-mix-tags': mix.urlsWithTags }
      : {};
    const callers = searchMixCallers(keys);
    for (const miss of misses) {
      const urls = mixUrls[miss.id];
      if (!urls) continue;
      // The same work: the plain answers' totals and pages are the Hub's (checked on the first URLs).
      for (const d of await plainDisagreements(pg, missHub.base, urls, callers, 40))
        broken.push(`the plain search (bench/plain-search.ts) disagrees with the Hub at ${size} templates: ${d}`);
      miss.plain = await plainSearchMix(pg, urls.slice(0, miss.one.requests), callers);
      const wide = postgres(dbUrl.toString(), { max: connections, onnotice: () => {} });
      miss.plainRps = await plainSearchMixRate(wide, urls, callers, miss.one.requests, connections, missDurationSec);
      await wide.end();
      log(
        `plain SQL, ${miss.title}: p50 ${miss.plain.p50.toFixed(2)} p99 ${miss.plain.p99.toFixed(2)} ms; ` +
          `${miss.plainRps.toFixed(0)} statements/s at ${connections} connections`,
      );
    }

    const explained = edgeOnly
      ? { results: [], note: 'not run (--only edge)' }
      : await explainAll({
          orgId: acme.id,
          brand: brands[0] ?? 'kalomive',
          typo: `${brands[0] ?? 'kalomive'}x`,
          tags: ['diffusion', 'jupyter'],
          search: 'server',
          since: new Date(recent),
          slug: ctx.slugs[0]!,
          visible,
          total: size,
        });
    for (const e of explained.results)
      log(
        `EXPLAIN ${e.id}: ` +
          (e.usesIndex ? e.indexesSeen.join(', ') : `no index${e.forcedUsesIndex ? ' (usable when forced)' : ''}`) +
          (e.seqScans?.length ? ` — sequential scan of ${e.seqScans.join(', ')}` : ''),
      );

    await baseline.child.stop();
    await bare.child.stop();
    await sameWork?.child.stop();
    const missRss = missHub.rss!.stop();
    await missHub.child.stop();
    hubPeak = Math.max(hubPeak, missRss.peakRssBytes);
    sizeResults.push({
      templates: size,
      seedSeconds,
      scenarios: results,
      searchProbe,
      misses,
      explain: explained.results,
      explainNote: explained.note,
      hubPeakRssBytes: Math.max(rss.peakRssBytes, missRss.peakRssBytes),
      listBytes,
      ...(paced ? { paced } : {}),
    });
  }

  const cpus = os.cpus();
  const partial: Omit<BenchReport, 'targets'> = {
    mode,
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    durationSec: (Date.now() - started.getTime()) / 1000,
    machine: {
      cpus: cpus.length,
      cpuModel: cpus[0]?.model.trim() ?? 'unknown',
      memoryBytes: os.totalmem(),
      node: process.version,
      postgres: await serverVersion(pg),
      os: `${os.type()} ${os.release()}`,
      loadavgStart,
      loadavgEnd: os.loadavg(),
    },
    build: {
      commit: git('rev-parse HEAD'),
      uncommittedFiles: git('status --porcelain').split('\n').filter(Boolean).length,
      ...build,
    },
    config: { connections, durationSec, warmupSec, sizes, keysPerOrg },
    sizes: sizeResults,
    mcp,
    parity,
    hubPeakRssBytes: hubPeak,
    broken,
    notes,
  };
  if (parity.some((p) => !p.ok))
    notes.push(
      "Some baseline answers differ from the Hub's (see Response parity): the baseline may need updating to the Hub's current response shape.",
    );
  notes.push(
    'Requests carry no Accept-Encoding (so neither server compresses) except in "Edge: cached list page, gzip/br". ' +
      'The "Edge" scenarios compare the Hub with the bare node:http server answering the same precomputed bytes, ' +
      'not with the baseline. The machine is shared (see the load average): compare ratios within one run rather ' +
      'than absolute numbers across runs.',
  );
  const report: BenchReport = { ...partial, targets: evaluateTargets(partial) };
  fs.mkdirSync(outDir, { recursive: true });
  const md = markdown(report);
  fs.writeFileSync(path.join(outDir, 'latest.json'), JSON.stringify(report, null, 2) + '\n');
  fs.writeFileSync(path.join(outDir, 'latest.md'), md);
  if (mode === 'full' && !missesOnly) updateReadme(report); // --only misses writes bench/results/tmp/ only
  console.log(md);
  log(
    `results: ${path.relative(root, path.join(outDir, 'latest.json'))}, ${path.relative(root, path.join(outDir, 'latest.md'))}`,
  );
  if (broken.length) {
    for (const b of broken) log(`BROKEN: ${b}`);
    return 1;
  }
  return 0;
}

/** Full mode: refresh the benchmark section of docs/benchmarks.md (between its markers), touching nothing else. */
function updateReadme(report: BenchReport) {
  const file = path.join(root, 'docs', 'benchmarks.md');
  const text = fs.readFileSync(file, 'utf8');
  const start = '<!-- bench:start -->';
  const end = '<!-- bench:end -->';
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  if (i < 0 || j < i)
    return log('docs/benchmarks.md has no <!-- bench:start --> … <!-- bench:end --> section: not updated');
  fs.writeFileSync(file, `${text.slice(0, i + start.length)}\n${readmeSection(report)}\n${text.slice(j)}`);
  log('docs/benchmarks.md benchmark section updated');
}

// ---------------------------------------------------------------- CPU profile of the edge scenarios (--profile)

/** Edge scenarios: each server's own CPU time per request (from /proc), the ratio the targets reach when CPU-bound. */
const cpuPerRequest: { size: number; id: string; title: string; hubUs: number; bareUs: number }[] = [];

/** Per-step microseconds per request of each edge scenario, from the Hub's CPU profile (bench/profile.ts). */
function writeProfileSummary(dir: string, size: number, windows: ProfiledWindow[]) {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')) : [];
  // The main thread's profile is the largest (pino's and tsx's worker threads write their own).
  const main = files.map((f) => path.join(dir, f)).sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0];
  if (!main) return log(`--profile: no CPU profile in ${dir} (did the Hub exit cleanly?)`);
  const profile = withOriginalSources(JSON.parse(fs.readFileSync(main, 'utf8')));
  const parts = [
    `# CPU profile of the Hub, ${size.toLocaleString('en-US')} templates (${path.relative(root, main)})`,
    '',
  ];
  for (const w of windows) {
    parts.push(
      `## ${w.title}`,
      '',
      summaryMarkdown(summarize(profile, w.requests, 25, { fromUs: w.fromUs, toUs: w.toUs }, w.cpu), w.requests),
      '',
    );
  }
  const cpu = cpuPerRequest.filter((c) => c.size === size);
  if (cpu.length > 0) {
    parts.push(
      '## CPU per request (user + system, /proc), Hub vs bare server',
      '',
      '| Scenario | Hub µs | Bare µs | Bare / Hub |',
      '|---|---:|---:|---:|',
    );
    for (const c of cpu)
      parts.push(
        `| ${c.title} | ${c.hubUs.toFixed(1)} | ${c.bareUs.toFixed(1)} | ${(c.bareUs / c.hubUs).toFixed(2)}× |`,
      );
  }
  const out = path.join(logDir, `..`, `profile-${size}.md`);
  fs.writeFileSync(out, parts.join('\n'));
  log(`--profile: per-step summary in ${path.relative(root, out)}`);
}

const code = await main().catch((err: Error) => {
  console.error(`[bench] failed: ${err.stack ?? err}`);
  return 1;
});
await cleanup();
process.exit(code);

/**
 * `npm run bench -- --fleet`: a simulated fleet against the scaled-out Hub (docs/operating-at-scale.md).
 *
 * Topology: scripts/ci-scale-up.sh (Debian's PgBouncer in transaction mode, a streaming replica), a fresh
 * database hub_fleet_<random>, two Hub processes (the production edge, tests/fixtures/edge-process.ts: REST,
 * /metrics, no Next.js pages) through the pooler with reads on the replica, load from this process.
 * The fleet: FLEET_ORGS organizations × KEYS_PER_ORG instance keys, each instance polling
 * `updates?since=<checked_at>` with its ETag every POLL_MS on a random phase, to either Hub (a balancer);
 * 1 % of the polls are a full sync instead (updates for the watermark, then every list page).
 * Phases: prime (every instance's first poll: no ETag yet; each key also meets the other Hub), idle (nothing written: what an idle poll costs),
 * writes (an admin creates a public template every WRITE_EVERY_MS), tail (no writes: the last writes reach
 * everyone). Per-poll cost is read from the Hubs' /metrics (CPU, statements, bytes, cache look-ups) and
 * PgBouncer's SHOW STATS; server connections from pg_stat_activity. Results: bench/results/fleet.{json,md}.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import zlib from 'node:zlib';
import postgres from 'postgres';
import { issueSecret } from '@shared/tokens';
import { ROUTE_CLASSES } from '../server/metrics';
import { ensureBuilt, TARGETS } from '../scripts/build-server.mjs';
import { nodeFlags } from './processes';

const root = path.resolve(import.meta.dirname, '..');
const log = (message: string) => console.error(`[fleet ${new Date().toISOString().slice(11, 19)}] ${message}`);

export interface FleetOptions {
  orgs: number;
  keysPerOrg: number;
  pollMs: number;
  writeEveryMs: number;
  writesMs: number;
  fullSyncShare: number;
  templates: number;
  /**
   * Poll intervals without writes after the prime interval. The last one is the "idle" phase that is reported; the
   * ones before it ("warm") let every process meet every key, so that "idle" shows the steady state.
   */
  idleIntervals: number;
  /**
   * Seconds of a phase instead of its default (FLEET_PHASES, e.g. `warm=0,quiet=10,idle=20,writes=40,tail=20`): short
   * runs for the loop of a change; the propagation targets then need their full tail. prime is always one poll interval.
   */
  phaseSeconds?: Partial<Record<'warm' | 'quiet' | 'bare' | 'idle' | 'writes' | 'tail', number>>;
  /** Extra Node flags for the Hub processes (FLEET_HUB_NODE_OPTIONS, e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`). */
  hubNodeFlags?: string[];
}

/** FLEET_PHASES and FLEET_HUB_NODE_OPTIONS (bench/README.md) applied to a run's options. */
export function fleetOptionsFromEnv(options: FleetOptions, env: NodeJS.ProcessEnv = process.env): FleetOptions {
  const phaseSeconds: FleetOptions['phaseSeconds'] = {};
  for (const part of (env.FLEET_PHASES ?? '').split(',').filter(Boolean)) {
    const m = /^(warm|quiet|bare|idle|writes|tail)=(\d+(?:\.\d+)?)$/.exec(part.trim());
    if (!m) throw new Error(`FLEET_PHASES: "${part}" is not <warm|quiet|bare|idle|writes|tail>=<seconds>`);
    phaseSeconds[m[1] as keyof typeof phaseSeconds] = Number(m[2]);
  }
  const hubNodeFlags = nodeFlags(env.FLEET_HUB_NODE_OPTIONS);
  if (Object.keys(phaseSeconds).length === 0 && hubNodeFlags.length === 0) return options;
  return { ...options, phaseSeconds, hubNodeFlags };
}

export const FULL_FLEET: FleetOptions = {
  orgs: 1_000,
  keysPerOrg: 100,
  pollMs: 60_000,
  writeEveryMs: 10_000,
  writesMs: 120_000,
  fullSyncShare: 0.01,
  templates: 1_000,
  idleIntervals: 1,
};

const METRICS_TOKEN = `fleet-${randomBytes(8).toString('hex')}`;
const POOL_SIZE = 10;

function scaleUp(...args: string[]): string {
  const r = spawnSync(path.join(root, 'scripts/ci-scale-up.sh'), args, {
    encoding: 'utf8',
    env: { ...process.env, SCALE_POOL_SIZE: String(POOL_SIZE) },
  });
  if (r.status !== 0) throw new Error(`ci-scale-up.sh ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

// ---------------------------------------------------------------- metrics of the Hubs and the pooler

type Sample = Map<string, number>;

async function scrape(base: string): Promise<Sample> {
  let res: Response | undefined;
  for (let attempt = 0; !res; attempt++) {
    try {
      res = await fetch(`${base}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
        signal: AbortSignal.timeout(60_000),
      });
    } catch (err) {
      if (attempt >= 3) throw err;
    }
  }
  const out: Sample = new Map();
  for (const line of (await res.text()).split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

/** Sum of the series of `name` whose labels contain every fragment. */
function sum(sample: Sample, name: string, ...fragments: string[]): number {
  let total = 0;
  for (const [series, value] of sample) {
    if (series !== name && !series.startsWith(`${name}{`)) continue;
    if (fragments.every((f) => series.includes(f))) total += value;
  }
  return total;
}

async function poolerStats(port: number, db: string) {
  const admin = postgres({
    host: '127.0.0.1',
    port,
    user: 'postgres',
    database: 'pgbouncer',
    max: 1,
    prepare: false,
    fetch_types: false,
    onnotice: () => {},
  });
  try {
    const stats = (await admin.unsafe('show stats').simple()) as unknown as Record<string, string>[];
    const pools = (await admin.unsafe('show pools').simple()) as unknown as Record<string, string>[];
    const s = stats.find((r) => r.database === db);
    const p = pools.find((r) => r.database === db);
    return {
      queries: Number(s?.total_query_count ?? 0),
      transactions: Number(s?.total_xact_count ?? 0),
      waitUs: Number(s?.total_wait_time ?? 0),
      serverActive: Number(p?.sv_active ?? 0),
      serverIdle: Number(p?.sv_idle ?? 0),
      clientWaiting: Number(p?.cl_waiting ?? 0),
      maxWaitMs: Number(p?.maxwait ?? 0) * 1000 + Number(p?.maxwait_us ?? 0) / 1000,
    };
  } finally {
    await admin.end();
  }
}

// ---------------------------------------------------------------- the load

const agent = new http.Agent({ keepAlive: true, maxSockets: 96 });

interface Answer {
  status: number;
  etag: string | undefined;
  body: string;
  ms: number;
}

/**
 * What Core's Hub client sends (core/src/hub/client.ts: Node's fetch): `accept-encoding: gzip, deflate`, so a list
 * page comes compressed as it does to a real instance.
 */
const ACCEPT_ENCODING = { 'accept-encoding': 'gzip, deflate' };

function decoded(body: Buffer, encoding: string | undefined): Buffer {
  if (encoding === 'gzip') return zlib.gunzipSync(body);
  if (encoding === 'deflate') return zlib.inflateSync(body);
  if (encoding === 'br') return zlib.brotliDecompressSync(body);
  return body;
}

function get(base: URL, pathAndQuery: string, headers: Record<string, string>): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const options = {
      host: base.hostname,
      port: base.port,
      path: pathAndQuery,
      headers: { ...ACCEPT_ENCODING, ...headers },
      agent,
    };
    const req = http.get(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          etag: res.headers.etag,
          body: decoded(Buffer.concat(chunks), res.headers['content-encoding']).toString('utf8'),
          ms: performance.now() - started,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
  });
}

function percentile(sorted: Float64Array | number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** Node with a compiled bundle (scripts/build-server.mjs), as production runs the Hub: [command, args]. */
function compiled(name: keyof typeof TARGETS, ...args: string[]): [string, string[]] {
  return [process.execPath, [path.join(root, TARGETS[name].outfile), ...args]];
}

/** The same with Node flags before the bundle (the Hubs' FLEET_HUB_NODE_OPTIONS). */
function compiledWith(flags: string[], name: keyof typeof TARGETS): [string, string[]] {
  const [node, args] = compiled(name);
  return [node, [...flags, ...args]];
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

// ---------------------------------------------------------------- run

export async function runFleet(chosen: FleetOptions = FULL_FLEET): Promise<void> {
  const options = fleetOptionsFromEnv(chosen);
  // A run with phases of its own is a loop run: its results go to bench/results/tmp/.
  const shortened = Object.keys(options.phaseSeconds ?? {}).length > 0;
  const children: ChildProcess[] = [];
  for (const name of ['hub-cli', 'edge-process'] as const) await ensureBuilt(name);
  const dbName = `hub_fleet_${randomBytes(4).toString('hex')}`;
  const urls = Object.fromEntries(
    scaleUp('up')
      .trim()
      .split('\n')
      .map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  scaleUp('delay', '0');
  const forDb = (url: string) => Object.assign(new URL(url), { pathname: `/${dbName}` }).toString();
  const poolerPort = Number(new URL(urls.DATABASE_URL!).port);
  const primary = postgres(urls.DATABASE_DIRECT_URL!, { max: 1, onnotice: () => {} });
  let fleetDb: postgres.Sql | undefined;
  const stop = async () => {
    // Each Hub leads a process group of its own: signal the whole group.
    for (const c of children) {
      try {
        process.kill(-c.pid!, 'SIGTERM');
      } catch {
        /* gone */
      }
    }
    await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
    await fleetDb?.end().catch(() => {});
    await primary.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await primary.end();
  };
  process.once('SIGINT', () => void stop().finally(() => process.exit(130)));
  process.once('exit', () => {
    for (const c of children) {
      try {
        process.kill(-c.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  });
  try {
    await primary.unsafe(`create database ${dbName}`);
    const hubEnv: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: forDb(urls.DATABASE_URL!),
      DATABASE_POOL_MODE: 'transaction',
      DATABASE_DIRECT_URL: forDb(urls.DATABASE_DIRECT_URL!),
      DATABASE_READ_URL: forDb(urls.DATABASE_READ_URL!),
      DATABASE_POOL_SIZE: String(POOL_SIZE),
      HUB_URL: 'http://hub.fleet.test',
      HUB_SECRET: `fleet-secret-${randomBytes(8).toString('hex')}`,
      HUB_LOG_LEVEL: 'warn',
      HUB_METRICS_TOKEN: METRICS_TOKEN,
      // The fleet's settings (docs/operating-at-scale.md): every key cached past its poll interval, every idle answer kept.
      HUB_CREDENTIAL_CACHE_TTL_MS: String(10 * options.pollMs),
      HUB_CREDENTIAL_CACHE_MAX: String(2 * options.orgs * options.keysPerOrg),
      HUB_RESPONSE_CACHE_ENTRIES: String(2 * options.orgs * options.keysPerOrg),
      HUB_RESPONSE_CACHE_MB: '256',
      // An organization's full-sync list pages are asked for about once a poll interval: kept past it.
      HUB_RESPONSE_CACHE_TTL_MS: String(5 * options.pollMs),
      // Loopback: the whole fleet comes from one address; a real fleet's addresses are its own.
      HUB_RATE_LIMIT_ADDRESS: '1000000000',
    };
    log(`database ${dbName}: migrating through the pooler`);
    const migrate = spawnSync(...compiled('hub-cli', 'migrate'), {
      cwd: root,
      env: hubEnv,
      encoding: 'utf8',
    });
    if (migrate.status !== 0) throw new Error(`migrate: ${migrate.stderr}`);

    // ---- seed: organizations, keys, templates; an admin and their JWT through the Hub's own code
    fleetDb = postgres(forDb(urls.DATABASE_DIRECT_URL!), { max: 4, onnotice: () => {} });
    const sql = fleetDb;
    log(
      `seeding ${options.orgs} organizations, ${options.orgs * options.keysPerOrg} instance keys, ${options.templates} templates`,
    );
    const orgIds = (
      await sql`insert into organizations (name, slug) select 'Fleet org ' || g, 'fleet-' || g from generate_series(1, ${options.orgs}) g returning id`
    ).map((r) => r.id as string);
    await sql`insert into subscriptions (org_id, plan) select unnest(${orgIds}::uuid[]), 'free'`;
    const [category] =
      await sql`insert into categories (name, slug, description, icon, sort_order) values ('Fleet', 'fleet', 'Fleet bench', 'box', 1) returning id`;
    await sql`insert into templates (name, slug, description, version, kind, category_id, image_name, image_tag, is_public)
              select 'Fleet template ' || g, 'fleet-t-' || g, 'A template of the fleet bench', '1.0.0', 'deployment',
                     ${category!.id}, 'registry.example.com/fleet/t' || g, '1.0.0', true
                from generate_series(1, ${options.templates}) g`;
    const instances: { secret: string; since: string; etag: string | undefined; busy: boolean }[] = [];
    for (let o = 0; o < orgIds.length; o += 100) {
      const batch: { org: string; name: string; hash: string; prefix: string }[] = [];
      for (const org of orgIds.slice(o, o + 100)) {
        for (let k = 0; k < options.keysPerOrg; k++) {
          const issued = issueSecret('svh_');
          instances.push({ secret: issued.secret, since: '', etag: undefined, busy: false });
          batch.push({ org, name: `core-${k}`, hash: issued.hash, prefix: issued.displayPrefix });
        }
      }
      await sql`insert into instance_keys (org_id, name, key_hash, key_prefix)
                select * from unnest(${batch.map((b) => b.org)}::uuid[], ${batch.map((b) => b.name)}::text[],
                                     ${batch.map((b) => b.hash)}::text[], ${batch.map((b) => b.prefix)}::text[])`;
    }
    // Every instance starts synced up to now: its first poll finds nothing new.
    const [{ now }] =
      (await sql`select to_char(clock_timestamp() at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as now`) as unknown as [
        { now: string },
      ];
    for (const inst of instances) inst.since = now;
    // Seeded: its connections must not count among the database connections the run reports.
    await sql.end();
    fleetDb = undefined;

    // ---- two Hub processes
    const startHub = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(...compiledWith(options.hubNodeFlags ?? [], 'edge-process'), {
          cwd: root,
          env: { ...hubEnv, HUB_FIXTURE_USERS: '' },
          stdio: ['ignore', 'pipe', 'inherit'],
          detached: true,
        });
        children.push(child);
        child.stdout!.on('data', (d) => {
          const m = /LISTENING (\S+)/.exec(String(d));
          if (m) resolve(m[1]!);
        });
        child.once('exit', (code) => reject(new Error(`hub exited ${code}`)));
      });
    const hubs = await Promise.all([startHub(), startHub()]);
    const hubUrls = hubs.map((h) => new URL(h));
    const pids = children.map((c) => c.pid!);
    log(`hubs ${hubs.join(', ')}`);
    const adminJwt =
      spawnSync(...compiled('hub-cli', 'user', 'create', '--email', 'fleet-admin@example.test', '--role', 'admin'), {
        cwd: root,
        env: hubEnv,
        encoding: 'utf8',
      }).status === 0
        ? spawnSync(...compiled('hub-cli', 'token', '--email', 'fleet-admin@example.test'), {
            cwd: root,
            env: hubEnv,
            encoding: 'utf8',
          }).stdout.trim()
        : '';
    if (!adminJwt) throw new Error('could not make the admin token');

    // ---- measurement state
    const n = instances.length;
    const phaseOf = new Float64Array(n).map(() => Math.random() * options.pollMs);
    const order = [...Array(n).keys()].sort((a, b) => phaseOf[a]! - phaseOf[b]!);
    const PHASES = ['prime', 'warm', 'quiet', 'bare', 'idle', 'writes', 'tail'] as const;
    type Phase = (typeof PHASES)[number];
    const latencies = Object.fromEntries(PHASES.map((p) => [p, [] as number[]])) as Record<Phase, number[]>;
    // The answers that carried changes (200) apart from the 304s: which of the two makes the tail.
    const changedLatencies = Object.fromEntries(PHASES.map((p) => [p, [] as number[]])) as Record<Phase, number[]>;
    // Every poll of the writes and tail phases (start ms since the run's start, ms, status, Hub, ms since the last
    // write): bench/results/tmp/fleet-polls.json, to see when the slow ones happen.
    const pollLog: [number, number, number, number, number][] = [];
    let lastWriteAt = NaN;
    const runStart = Date.now();
    const counts = Object.fromEntries(
      PHASES.map((p) => [p, { polls: 0, notModified: 0, errors: 0, fullSyncs: 0, bytes: 0 }]),
    ) as Record<Phase, { polls: number; notModified: number; errors: number; fullSyncs: number; bytes: number }>;
    const errorSamples: string[] = [];
    const writes: { id: string; at: number; reached: Float64Array; count: number }[] = [];
    const writeIndex = new Map<string, number>();
    let phase: Phase = 'prime';
    let inFlight = 0;

    const noteTemplates = (ids: string[], at: number, who: number) => {
      for (const id of ids) {
        const w = writeIndex.get(id);
        if (w === undefined) continue;
        const write = writes[w]!;
        if (Number.isNaN(write.reached[who]!)) {
          write.reached[who] = at - write.at;
          write.count++;
        }
      }
    };

    const fail = (what: string) => {
      counts[phase].errors++;
      if (errorSamples.length < 20) errorSamples.push(what);
    };

    const poll = async (who: number) => {
      const inst = instances[who]!;
      if (inst.busy) return;
      inst.busy = true;
      inFlight++;
      const hubIndex = Math.floor(Math.random() * hubUrls.length);
      const hub = hubUrls[hubIndex]!;
      const auth = { authorization: `Bearer ${inst.secret}` };
      const current = phase;
      try {
        // The prime phase also introduces each key to the other Hubs (one categories read each): the later phases
        // measure Hubs that have met the fleet, as after running a while — not each process's first meeting of a
        // key, which a random balancer would otherwise spread over the first intervals (1 − 2⁻ᵏ met after k).
        if (current === 'prime')
          for (const other of hubUrls)
            if (other !== hub) {
              const met = await get(other, '/api/v1/catalog/categories', auth);
              if (met.status !== 200) return fail(`categories ${met.status}`);
            }
        if (current !== 'bare' && Math.random() < options.fullSyncShare) {
          counts[current].fullSyncs++;
          const mark = await get(
            hub,
            `/api/v1/catalog/templates/updates?since=${encodeURIComponent(new Date().toISOString())}`,
            auth,
          );
          if (mark.status !== 200) return fail(`full sync mark ${mark.status}`);
          const checkedAt = JSON.parse(mark.body).checked_at as string;
          for (let page = 1; ; page++) {
            const list = await get(hub, `/api/v1/catalog/templates?limit=100&page=${page}`, auth);
            if (list.status !== 200) return fail(`list ${list.status}`);
            const body = JSON.parse(list.body);
            noteTemplates(
              body.templates.map((t: { id: string }) => t.id),
              Date.now(),
              who,
            );
            if (page >= body.pagination.totalPages) break;
          }
          inst.since = checkedAt;
          inst.etag = undefined;
          return;
        }
        for (let more = true; more;) {
          const answer = await get(hub, `/api/v1/catalog/templates/updates?since=${encodeURIComponent(inst.since)}`, {
            ...auth,
            ...(inst.etag && { 'if-none-match': inst.etag }),
          });
          counts[current].polls++;
          latencies[current].push(answer.ms);
          if (answer.status !== 304) changedLatencies[current].push(answer.ms);
          if (current === 'writes' || current === 'tail') {
            const now = Date.now();
            pollLog.push([now - runStart - answer.ms, round(answer.ms), answer.status, hubIndex, now - lastWriteAt]);
          }
          counts[current].bytes += answer.body.length;
          if (answer.status === 304) {
            counts[current].notModified++;
            return;
          }
          if (answer.status !== 200) return fail(`updates ${answer.status} ${answer.body.slice(0, 120)}`);
          const body = JSON.parse(answer.body);
          noteTemplates(
            body.templates.map((t: { id: string }) => t.id),
            Date.now(),
            who,
          );
          inst.since = body.checked_at;
          more = body.has_more;
          inst.etag = more ? undefined : answer.etag;
        }
      } catch (err) {
        fail((err as Error).message);
      } finally {
        inst.busy = false;
        inFlight--;
      }
    };

    const writeTemplate = async (k: number) => {
      const body = JSON.stringify({
        name: `Fleet write ${k}`,
        slug: `fleet-write-${k}`,
        category_id: category!.id,
        image_name: 'registry.example.com/fleet/write',
        is_public: true,
      });
      const at = Date.now();
      lastWriteAt = at;
      let template: { id: string };
      try {
        const res = await fetch(`${hubs[k % 2]}/api/v1/admin/templates`, {
          method: 'POST',
          headers: { authorization: `Bearer ${adminJwt}`, 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(30_000),
        });
        if (res.status !== 200) return fail(`admin write ${res.status} ${await res.text()}`);
        ({ template } = (await res.json()) as { template: { id: string } });
      } catch (err) {
        return fail(`admin write: ${(err as Error).message}`);
      }
      log(`write ${k} took ${Date.now() - at} ms`);
      writeIndex.set(template.id, writes.length);
      writes.push({ id: template.id, at, reached: new Float64Array(n).fill(NaN), count: 0 });
    };

    // ---- the schedule: every instance at its phase, every poll interval
    // quiet: no poll at all, the Hubs holding the whole fleet in memory — what a Hub costs a second with no load.
    // bare: the idle polls without the full syncs. Beside each other they split the idle phase's CPU into the fixed
    // part, the 304 polls and the full syncs.
    const custom = options.phaseSeconds ?? {};
    const msOf = (name: keyof NonNullable<FleetOptions['phaseSeconds']>, fallback: number) =>
      custom[name] === undefined ? fallback : custom[name] * 1000;
    const warmMs = msOf('warm', (options.idleIntervals - 1) * options.pollMs);
    const quietMs = msOf('quiet', 20_000);
    const phases: { name: Phase; ms: number }[] = [
      { name: 'prime', ms: options.pollMs },
      ...(warmMs > 0 ? [{ name: 'warm' as const, ms: warmMs }] : []),
      ...(quietMs > 0 ? [{ name: 'quiet' as const, ms: quietMs }] : []),
      ...(msOf('bare', 30_000) > 0 ? [{ name: 'bare' as const, ms: msOf('bare', 30_000) }] : []),
      { name: 'idle', ms: msOf('idle', options.pollMs) },
      { name: 'writes', ms: msOf('writes', options.writesMs) },
      { name: 'tail', ms: msOf('tail', 2 * options.pollMs + 5_000) },
    ];
    const snapshots: Record<
      string,
      { hubs: Sample[]; pooler: Awaited<ReturnType<typeof poolerStats>>; at: number; cpu: number[]; sys: number[] }
    > = {};
    const statOf = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime + stime of the Hub's process (compiled: no loader process in between), in ms.
    const cpuOf = (pid: number) => {
      const stat = statOf(pid);
      return (Number(stat[11]) + Number(stat[12])) * 10;
    };
    // stime alone: the kernel's part (on loopback the sender's syscalls also run the receiving side's TCP).
    const sysOf = (pid: number) => Number(statOf(pid)[12]) * 10;
    const snapshot = async (label: string) => {
      snapshots[label] = {
        hubs: await Promise.all(hubs.map(scrape)),
        pooler: await poolerStats(poolerPort, dbName),
        at: Date.now(),
        cpu: pids.map(cpuOf),
        sys: pids.map(sysOf),
      };
    };
    // Client backends only: autovacuum workers on the bench database also show its name in pg_stat_activity.
    // The Hubs' direct connections (application_name hub-direct: LISTEN, the migration lock) are counted apart.
    // Each sample also counts by application_name (the pooler's server connections carry their last client's).
    const connectionSamples: { phase: Phase; all: number; direct: number; byApplication: Record<string, number> }[] =
      [];
    const connectionTimer = setInterval(() => {
      const sampledIn = phase;
      void primary`select coalesce(nullif(application_name, ''), '(none)') as app, count(*)::int as n
                     from pg_stat_activity where datname = ${dbName} and backend_type = 'client backend'
                    group by 1`
        .then((rows) => {
          const byApplication = Object.fromEntries(rows.map((r) => [r.app as string, r.n as number]));
          const all = rows.reduce((acc, r) => acc + (r.n as number), 0);
          connectionSamples.push({ phase: sampledIn, all, direct: byApplication['hub-direct'] ?? 0, byApplication });
        })
        .catch(() => {});
    }, 2_000);

    let start = Date.now();
    let cursor = 0;
    let cycle = 0;
    let writeCount = 0;
    let nextWrite = Infinity;
    await snapshot('start');
    for (const p of phases) {
      phase = p.name;
      const phaseEnd = Date.now() + p.ms;
      log(`phase ${p.name} (${Math.round(p.ms / 1000)} s)`);
      if (p.name === 'writes') nextWrite = Date.now();
      if (p.name === 'tail') nextWrite = Infinity;
      if (p.name === 'quiet') {
        // No poll: wait out the phase, then resume the schedule where it stopped (no burst of missed polls).
        const quietFrom = Date.now();
        while (Date.now() < phaseEnd) await new Promise((r) => setTimeout(r, 50));
        start += Date.now() - quietFrom;
        await snapshot(p.name);
        continue;
      }
      while (Date.now() < phaseEnd) {
        const elapsed = Date.now() - start;
        while (phaseOf[order[cursor]!]! + cycle * options.pollMs <= elapsed) {
          void poll(order[cursor]!);
          if (++cursor === n) {
            cursor = 0;
            cycle++;
          }
        }
        if (Date.now() >= nextWrite) {
          void writeTemplate(writeCount++);
          nextWrite += options.writeEveryMs;
        }
        await new Promise((r) => setTimeout(r, 5));
      }
      await snapshot(p.name);
    }
    clearInterval(connectionTimer);
    while (inFlight > 0) await new Promise((r) => setTimeout(r, 50));

    // ---- figures
    const delta = (from: string, to: string, f: (s: Sample) => number) =>
      snapshots[to]!.hubs.reduce((acc, s, i) => acc + f(s) - f(snapshots[from]!.hubs[i]!), 0);
    const perPhase = (from: string, to: Phase) => {
      const polls = delta(from, to, (s) => sum(s, 'hub_http_requests_total', 'route="catalog_updates"'));
      const statements = delta(from, to, (s) => sum(s, 'hub_db_statements_total'));
      const cpuSeconds = delta(from, to, (s) => sum(s, 'process_cpu_seconds_total'));
      const bytes = delta(from, to, (s) => sum(s, 'hub_http_response_bytes_total', 'route="catalog_updates"'));
      const allRequests = delta(from, to, (s) => sum(s, 'hub_http_requests_total'));
      const credHits = delta(from, to, (s) => sum(s, 'hub_credential_cache_lookups_total', 'result="hit"'));
      const credMiss = delta(from, to, (s) => sum(s, 'hub_credential_cache_lookups_total', 'result="miss"'));
      const replica = delta(from, to, (s) => sum(s, 'hub_catalog_reads_total', 'target="replica"'));
      const onPrimary = delta(from, to, (s) => sum(s, 'hub_catalog_reads_total', 'target="primary"'));
      const notModified = delta(from, to, (s) =>
        sum(s, 'hub_http_requests_total', 'route="catalog_updates"', 'status="304"'),
      );
      const errors5xx = delta(from, to, (s) => sum(s, 'hub_http_requests_total', 'status="5'));
      const poolerQueries = snapshots[to]!.pooler.queries - snapshots[from]!.pooler.queries;
      const seconds = (snapshots[to]!.at - snapshots[from]!.at) / 1000;
      const sorted = Float64Array.from(latencies[to]).sort();
      const changedSorted = Float64Array.from(changedLatencies[to]).sort();
      // CPU of the Hub processes from /proc (utime + stime, 10 ms ticks), a second per Hub.
      const hubCpuMs = snapshots[to]!.cpu.reduce((acc, c, i) => acc + c - snapshots[from]!.cpu[i]!, 0);
      const hubSysMs = snapshots[to]!.sys.reduce((acc, c, i) => acc + c - snapshots[from]!.sys[i]!, 0);
      const responseHits = delta(from, to, (s) => sum(s, 'hub_response_cache_lookups_total', 'result="hit"'));
      const responseMisses = delta(from, to, (s) => sum(s, 'hub_response_cache_lookups_total', 'result="miss"'));
      // Statements per second by what sent them (a route class or a background job: the metric's source label).
      const sources = new Set<string>();
      for (const sample of snapshots[to]!.hubs)
        for (const series of sample.keys()) {
          const source = /^hub_db_statements_total\{.*source="([^"]+)"/.exec(series)?.[1];
          if (source) sources.add(source);
        }
      const statementsPerSecondBySource = Object.fromEntries(
        [...sources]
          .map((source) => {
            const count = delta(from, to, (s) => sum(s, 'hub_db_statements_total', `source="${source}"`));
            return [source, round(count / seconds, 2)] as const;
          })
          .filter(([, perSecond]) => perSecond > 0)
          .sort((a, b) => b[1] - a[1]),
      );
      return {
        seconds: round(seconds, 1),
        pollsPerSecond: round(polls / seconds, 1),
        requestsPerSecond: round(allRequests / seconds, 1),
        p50Ms: round(percentile(sorted, 50)),
        p99Ms: round(percentile(sorted, 99)),
        maxMs: round(sorted.at(-1) ?? NaN),
        changedAnswers: changedSorted.length,
        changedP99Ms: round(percentile(changedSorted, 99)),
        hubCpuMsPerSecondPerHub: round(hubCpuMs / seconds / snapshots[to]!.cpu.length, 1),
        hubSystemShare: round(hubCpuMs ? hubSysMs / hubCpuMs : 0, 3),
        responseCacheHitRate: round(
          responseHits + responseMisses ? responseHits / (responseHits + responseMisses) : 0,
          4,
        ),
        // prom-client's event-loop delay, the largest of the Hubs over the phase (its monitor resets at each scrape).
        eventLoopLagMaxMs: round(
          Math.max(...snapshots[to]!.hubs.map((s) => sum(s, 'nodejs_eventloop_lag_max_seconds'))) * 1000,
          1,
        ),
        notModifiedShare: round(polls ? notModified / polls : 0, 4),
        hubCpuMsPerPoll: round(polls ? (cpuSeconds * 1000) / polls : 0, 3),
        hubCpuMsPerRequest: round(allRequests ? (cpuSeconds * 1000) / allRequests : 0, 3),
        statementsPerPoll: round(polls ? statements / polls : 0, 4),
        statementsPerRequest: round(allRequests ? statements / allRequests : 0, 4),
        poolerQueriesPerRequest: round(allRequests ? poolerQueries / allRequests : 0, 4),
        bytesPerPoll: round(polls ? bytes / polls : 0, 1),
        statementsPerSecondBySource,
        credentialCacheHitRate: round(credHits + credMiss ? credHits / (credHits + credMiss) : 0, 4),
        catalogReadsOnReplica: round(replica + onPrimary ? replica / (replica + onPrimary) : 0, 4),
        hub5xx: errors5xx,
        client: counts[to],
      };
    };
    const propagation = writes.map((w) => {
      const delays = Float64Array.from([...w.reached].filter((d) => !Number.isNaN(d))).sort();
      return {
        reached: w.count,
        p50: percentile(delays, 50),
        p99: percentile(delays, 99),
        max: delays.at(-1) ?? NaN,
        at99: percentile(delays, 99),
      };
    });
    const allDelays = Float64Array.from(writes.flatMap((w) => [...w.reached].filter((d) => !Number.isNaN(d)))).sort();
    const fleetShare99 = writes.map((w) => {
      const delays = Float64Array.from([...w.reached].map((d) => (Number.isNaN(d) ? Infinity : d))).sort();
      return { p99: percentile(delays, 99), max: delays.at(-1)! };
    });
    const report = {
      generatedAt: new Date().toISOString(),
      machine: { cpus: (await import('node:os')).cpus().length },
      fleet: {
        instances: n,
        organizations: options.orgs,
        pollSeconds: options.pollMs / 1000,
        writeEverySeconds: options.writeEveryMs / 1000,
        templates: options.templates,
        fullSyncShare: options.fullSyncShare,
        idleIntervals: options.idleIntervals,
      },
      topology: {
        hubProcesses: 2,
        pooler: 'PgBouncer 1.18, pool_mode transaction',
        poolSize: POOL_SIZE,
        hubPoolSize: POOL_SIZE,
        replica: 'streaming replica (pg_basebackup), no apply delay',
      },
      phases: Object.fromEntries(
        phases.map((p, i) => [p.name, perPhase(phases[i - 1]?.name ?? 'start', p.name)]),
      ) as Record<Phase, ReturnType<typeof perPhase>>,
      propagation: {
        writes: writes.length,
        everyInstanceReached: writes.every((w) => w.count === n),
        delayMs: {
          p50: round(percentile(allDelays, 50)),
          p99: round(percentile(allDelays, 99)),
          max: round(allDelays.at(-1) ?? NaN),
        },
        fleet99WithinMs: round(Math.max(...fleetShare99.map((f) => f.p99))),
        fleet100WithinMs: round(Math.max(...fleetShare99.map((f) => f.max))),
        perWrite: propagation.map((p) => ({
          reached: p.reached,
          p50: round(p.p50),
          p99: round(p.p99),
          max: round(p.max),
        })),
      },
      database: {
        serverConnectionsMax: Math.max(...connectionSamples.map((c) => c.all)),
        directConnectionsMax: Math.max(...connectionSamples.map((c) => c.direct)),
        serverConnectionsSamples: connectionSamples.length,
        // The largest sample of each phase, with what it was made of.
        byPhase: Object.fromEntries(
          phases.map(({ name }) => {
            const largest = connectionSamples
              .filter((c) => c.phase === name)
              .reduce<(typeof connectionSamples)[number] | undefined>(
                (a, c) => (!a || c.all > a.all ? c : a),
                undefined,
              );
            return [name, largest ? { max: largest.all, byApplication: largest.byApplication } : null];
          }),
        ),
        poolerAtEnd: snapshots.tail!.pooler,
        note:
          "client backends in pg_stat_activity on the primary for the bench database: the pooler's server " +
          "connections plus the Hubs' direct connections (DATABASE_DIRECT_URL: LISTEN, the migration lock at " +
          'start)',
      },
      errors: errorSamples,
    };
    const idle = report.phases.idle;
    const quiet = report.phases.quiet as ReturnType<typeof perPhase> | undefined;
    const bare = report.phases.bare as ReturnType<typeof perPhase> | undefined;
    // The idle phase's Hub CPU split: the fixed part (quiet), the 304 polls (bare over quiet, per poll) and the full
    // syncs (idle over bare, per full sync). CPU a second of both Hubs.
    const cpuPerSecond = (p: ReturnType<typeof perPhase>) => p.hubCpuMsPerSecondPerHub * hubs.length;
    report['idleCost' as never] = (
      quiet && bare
        ? {
            quietCpuMsPerSecondPerHub: quiet.hubCpuMsPerSecondPerHub,
            bareCpuMsPerSecondPerHub: bare.hubCpuMsPerSecondPerHub,
            idleCpuMsPerSecondPerHub: idle.hubCpuMsPerSecondPerHub,
            cpuMsPer304Poll: round((cpuPerSecond(bare) - cpuPerSecond(quiet)) / bare.pollsPerSecond, 3),
            cpuMsPerFullSync: round(
              (cpuPerSecond(idle) - cpuPerSecond(bare)) / (idle.client.fullSyncs / idle.seconds),
              2,
            ),
            fullSyncsPerSecond: round(idle.client.fullSyncs / idle.seconds, 2),
          }
        : null
    ) as never;
    fs.mkdirSync(path.join(root, 'bench/results/tmp'), { recursive: true });
    fs.writeFileSync(path.join(root, 'bench/results/tmp/fleet-polls.json'), JSON.stringify(pollLog));
    const all = [report.phases.idle, report.phases.writes, report.phases.tail];
    report['targets' as never] = {
      pollsPerSecond: { target: n / (options.pollMs / 1000), measured: report.phases.writes.pollsPerSecond },
      p99Ms: { target: 50, measured: Math.max(...all.map((p) => p.p99Ms)), met: all.every((p) => p.p99Ms <= 50) },
      // issue 36: on this 2-core machine, with writes every 10 s.
      writesP99Ms: { target: 250, measured: report.phases.writes.p99Ms, met: report.phases.writes.p99Ms <= 250 },
      noError: { met: all.every((p) => p.client.errors === 0 && p.hub5xx === 0) },
      statementsPerIdlePoll: { target: 0.05, measured: idle.statementsPerPoll, met: idle.statementsPerPoll <= 0.05 },
      fleet99WithinMs: {
        target: options.pollMs + 5_000,
        measured: report.propagation.fleet99WithinMs,
        met: report.propagation.fleet99WithinMs <= options.pollMs + 5_000,
      },
      fleet100WithinMs: {
        target: 2 * options.pollMs,
        measured: report.propagation.fleet100WithinMs,
        met: report.propagation.fleet100WithinMs <= 2 * options.pollMs,
      },
      // Over the phases the other targets judge (idle, writes, tail), as they do: prime includes the Hubs' start,
      // whose migration lock and migration hold two more direct connections each until they idle out (5 s).
      connectionsAtPoolSize: ((measured) => ({ target: POOL_SIZE + 2, measured, met: measured <= POOL_SIZE + 2 }))(
        Math.max(...connectionSamples.filter((c) => ['idle', 'writes', 'tail'].includes(c.phase)).map((c) => c.all)),
      ),
    } as never;
    const outDir = path.join(root, shortened ? 'bench/results/tmp' : 'bench/results');
    fs.mkdirSync(outDir, { recursive: true });
    // The full fleet's figures stay in fleet.*; a scaled run (other options) gets a name of its own.
    const name = chosen === FULL_FLEET ? 'fleet' : `fleet-${n}-keys-${options.idleIntervals}-idle`;
    fs.writeFileSync(path.join(outDir, `${name}.json`), `${JSON.stringify(report, null, 2)}\n`);
    fs.writeFileSync(path.join(outDir, `${name}.md`), fleetMarkdown(report));
    log(`written ${path.relative(root, outDir)}/${name}.{json,md}`);
    console.log(fleetMarkdown(report));
  } finally {
    await stop();
  }
}

/** hub_db_statements_total's sources that are a request's route class; the rest are background jobs. */
const REQUEST_SOURCES = new Set<string>(ROUTE_CLASSES);

function fleetMarkdown(r: Record<string, any>): string {
  const rows = Object.entries(r.phases as Record<string, any>).map(
    ([name, p]) =>
      `| ${name} | ${p.seconds} | ${p.pollsPerSecond} | ${p.p50Ms} | ${p.p99Ms} | ${p.notModifiedShare} | ${p.hubCpuMsPerPoll} | ` +
      `${p.statementsPerPoll} | ${p.poolerQueriesPerRequest} | ${p.bytesPerPoll} | ${p.credentialCacheHitRate} | ` +
      `${p.catalogReadsOnReplica} | ${p.client.errors + p.hub5xx} | ${p.hubCpuMsPerSecondPerHub} | ${p.changedP99Ms} | ` +
      `${p.responseCacheHitRate} | ${p.eventLoopLagMaxMs} | ${p.hubSystemShare} |`,
  );
  const t = r.targets as Record<string, any>;
  const idle = r.phases.idle;
  // At the full fleet's poll rate: a background job's statements a second stay as they are (each runs at most
  // once a second or so per process, whatever the traffic); a request's statements per poll stay per poll.
  const fullFleetPollsPerSecond = (FULL_FLEET.orgs * FULL_FLEET.keysPerOrg) / (FULL_FLEET.pollMs / 1000);
  let projected = 0;
  const bySource = Object.entries((idle.statementsPerSecondBySource ?? {}) as Record<string, number>).map(
    ([source, perSecond]) => {
      const perPoll = idle.pollsPerSecond ? perSecond / idle.pollsPerSecond : 0;
      const atFullFleet = !REQUEST_SOURCES.has(source) ? perSecond / fullFleetPollsPerSecond : perPoll;
      projected += atFullFleet;
      return `| ${source} | ${!REQUEST_SOURCES.has(source) ? 'background' : 'requests'} | ${perSecond} | ${round(perPoll, 4)} | ${round(atFullFleet, 4)} |`;
    },
  );
  const phaseHeader =
    '| phase | s | polls/s | p50 ms | p99 ms | 304 share | Hub CPU ms/poll | statements/poll | pooler queries/request | ' +
    'bytes/poll | credential cache hits | catalog reads on replica | errors | Hub CPU ms/s per Hub | p99 ms of 200s | ' +
    'response cache hits | event-loop lag max ms | Hub CPU in the kernel |';
  const fullRate = fullFleetPollsPerSecond.toLocaleString('en', { maximumFractionDigits: 0 });
  const isFullFleet = r.fleet.instances === FULL_FLEET.orgs * FULL_FLEET.keysPerOrg;
  const idleNote =
    r.fleet.idleIntervals > 1
      ? ` (the idle phase is the last of ${r.fleet.idleIntervals} poll intervals without writes; "warm" is the ones before it)`
      : '';
  const connections = t.connectionsAtPoolSize;
  const connectionsRow =
    `| server connections ≤ pool size + one LISTEN per Hub (${connections.target}), idle to tail | ` +
    `${connections.measured} | ${connections.met} |`;
  const delay = r.propagation.delayMs;
  // Paragraphs are wrapped in the source (Markdown joins the lines); table rows are built above.
  return `# Fleet simulation (${r.generatedAt})

${r.fleet.instances.toLocaleString('en')} instance keys in ${r.fleet.organizations.toLocaleString('en')} organizations,
each polling \`updates\` with its ETag every ${r.fleet.pollSeconds} s on a random phase${idleNote};
${r.fleet.fullSyncShare * 100} % of polls a full sync; an admin creates a public template every
${r.fleet.writeEverySeconds} s in the writes phase. ${r.topology.hubProcesses} Hub processes (production edge) →
${r.topology.pooler} (pool ${r.topology.poolSize}) → PostgreSQL 15, catalog reads on a ${r.topology.replica}.
Machine: ${r.machine.cpus} cores, shared with the load generator, the pooler, both PostgreSQL clusters.

Per-poll figures come from the Hubs' /metrics (CPU: process_cpu_seconds_total; statements: hub_db_statements_total,
the query builder's statements without BEGIN/COMMIT) and PgBouncer's SHOW STATS (every query, per request of any kind).

${phaseHeader}
|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}
${
  r.idleCost
    ? `
Where the idle phase's Hub CPU goes (CPU from /proc; the table's Hub CPU ms/poll divides all of it by the polls):
the quiet phase has no poll at all (the Hubs holding the whole fleet), the bare phase the idle polls without full syncs.
A Hub costs ${r.idleCost.quietCpuMsPerSecondPerHub} ms of CPU a second quiet, ${r.idleCost.bareCpuMsPerSecondPerHub} bare and
${r.idleCost.idleCpuMsPerSecondPerHub} idle: **${r.idleCost.cpuMsPer304Poll} ms per 304 poll** over the quiet Hub, and
${r.idleCost.cpuMsPerFullSync} ms per full sync (${r.idleCost.fullSyncsPerSecond}/s: the updates mark and every list page).
`
    : ''
}

Statements in the idle phase by what sent them (\`hub_db_statements_total\`'s source: a request's route class, or a background job), both Hubs together:

| source | kind | statements/s | per poll | per poll at ${fullRate} polls/s |
|---|---|---|---|---|
${bySource.join('\n')}

Projected at the full fleet's rate (background statements a second as measured, over ${fullRate} polls/s; the
requests' statements per poll as measured): **${round(projected, 4)} statements per idle poll**${
    isFullFleet ? ' (this run is the full fleet: the measured figure above is the one that counts)' : ''
  }.

Write propagation (${r.propagation.writes} writes; every instance reached by every write:
${r.propagation.everyInstanceReached}): delay from the write to an instance having it p50 ${delay.p50} ms, p99
${delay.p99} ms, max ${delay.max} ms; 99 % of the fleet had each write within ${r.propagation.fleet99WithinMs} ms,
100 % within ${r.propagation.fleet100WithinMs} ms.

Database connections (max of ${r.database.serverConnectionsSamples} samples): ${r.database.serverConnectionsMax},
of which the Hubs' direct ones at most ${r.database.directConnectionsMax ?? 'not sampled'} — ${r.database.note}.
The largest sample of each phase, by application_name: ${Object.entries(
    (r.database.byPhase ?? {}) as Record<string, { max: number; byApplication: Record<string, number> } | null>,
  )
    .map(
      ([name, c]) =>
        `${name} ${
          c
            ? `${c.max} (${Object.entries(c.byApplication)
                .map(([app, n]) => `${app} ${n}`)
                .join(', ')})`
            : 'no sample'
        }`,
    )
    .join('; ')}.

## Targets

| target | measured | met |
|---|---|---|
| ${t.pollsPerSecond.target.toFixed(0)} polls/s | ${t.pollsPerSecond.measured} | ${t.pollsPerSecond.measured >= 0.97 * t.pollsPerSecond.target} |
| p99 ≤ 50 ms | ${t.p99Ms.measured} | ${t.p99Ms.met} |
| p99 ≤ 250 ms in the writes phase (issue 36) | ${t.writesP99Ms.measured} | ${t.writesP99Ms.met} |
| no error | ${r.errors.length} error samples | ${t.noError.met} |
| ≤ 0.05 statements per idle poll | ${t.statementsPerIdlePoll.measured} | ${t.statementsPerIdlePoll.met} |
| 99 % of the fleet within ${t.fleet99WithinMs.target} ms | ${t.fleet99WithinMs.measured} | ${t.fleet99WithinMs.met} |
| 100 % within ${t.fleet100WithinMs.target} ms | ${t.fleet100WithinMs.measured} | ${t.fleet100WithinMs.met} |
${connectionsRow}
${r.errors.length ? `\nError samples: ${r.errors.map((e: string) => `\`${e}\``).join(', ')}\n` : ''}`;
}

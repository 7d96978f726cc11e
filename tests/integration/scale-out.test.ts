/**
 * The Hub scaled out (docs/operating-at-scale.md): two Hub processes through Debian's PgBouncer in transaction
 * mode, their anonymous and instance-key catalog reads on a streaming replica of the PostgreSQL server
 * (scripts/ci-scale-up.sh makes and starts both; a third process, through the pooler without a replica,
 * answers what the primary lists).
 *  - Migrations from two processes at once through the pooler (the lock on DATABASE_DIRECT_URL).
 *  - A catalog write through one process reaches the other's cache (LISTEN on the direct connection).
 *  - Catalog convergence with random writes while the replica applies WAL 2 s late: after each change, syncs
 *    through either process bring every client to exactly what the primary lists for it, within a second
 *    (less than the replica's lag: nothing waits for the replica, and no checked_at passes what it replayed);
 *    then again with the replica stopped mid-run (its reads fall back to the primary, no request fails).
 *  - The pooler's server connections stay at its pool size.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectionOptions } from '../../server/db/postgres';

const scaleUp = path.join(process.cwd(), 'scripts/ci-scale-up.sh');
const tsx = path.join(process.cwd(), 'node_modules/.bin/tsx');
const dbName = `scale_it_${randomBytes(4).toString('hex')}`;
const POOL_SIZE = Number(process.env.SCALE_POOL_SIZE ?? 10);
const children: ChildProcess[] = [];
const METRICS_TOKEN = 'scale-out-metrics-token';
let urls: Record<string, string>;
let admin: postgres.Sql;
let hubA: string, hubB: string, primaryHub: string, edge: string;
let adminJwt: string;
let tokens: Record<string, string>;
/** One organization per owner: the owners of each random run's two organizations. */
const OWNERS = ['7a', '7b', '11a', '11b'].map((o) => `scale-owner-${o}@example.test:user`).join(',');

function script(...args: string[]) {
  const r = spawnSync(scaleUp, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`ci-scale-up.sh ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function forDatabase(url: string) {
  return Object.assign(new URL(url), { pathname: `/${dbName}` }).toString();
}

function hubEnv(withReplica: boolean): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: forDatabase(urls.DATABASE_URL!),
    DATABASE_POOL_MODE: 'transaction',
    DATABASE_DIRECT_URL: forDatabase(urls.DATABASE_DIRECT_URL!),
    DATABASE_READ_URL: withReplica ? forDatabase(urls.DATABASE_READ_URL!) : '',
    DATABASE_POOL_SIZE: '5',
    HUB_URL: 'http://hub.test',
    HUB_SECRET: 'scale-out-test-secret',
    HUB_LOG_LEVEL: 'warn',
    HUB_METRICS_TOKEN: METRICS_TOKEN,
    // The primary's lister answers from the database every time: exactly what the primary has.
    HUB_RESPONSE_CACHE_MB: withReplica ? '64' : '0',
  };
}

function startHub(
  withReplica: boolean,
  users = '',
  fixture = 'tests/fixtures/hub-process.ts',
): Promise<{ url: string; tokens: Record<string, string> }> {
  const child = spawn(tsx, [fixture], {
    env: { ...hubEnv(withReplica), HUB_FIXTURE_USERS: users },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.push(child);
  const tokens: Record<string, string> = {};
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      for (const m of out.matchAll(/USER (\S+) (\S+)/g)) tokens[m[1]!] = m[2]!;
      const listening = /LISTENING (\S+)/.exec(out);
      if (listening) resolve({ url: listening[1]!, tokens });
    });
    child.on('exit', (code) => reject(new Error(`hub process exited ${code}`)));
  });
}

async function call(base: string, p: string, init: { method?: string; token?: string | null; body?: unknown } = {}) {
  const res = await fetch(`${base}/api/v1${p}`, {
    method: init.method ?? 'GET',
    headers: {
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.body ? { 'content-type': 'application/json' } : {}),
    },
    body: init.body ? JSON.stringify(init.body) : undefined,
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function ok(base: string, p: string, method: string, body?: unknown, token = adminJwt) {
  const res = await call(base, p, { method, token, body });
  expect(res.status, `${method} ${p} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

beforeAll(async () => {
  urls = Object.fromEntries(
    script('up')
      .trim()
      .split('\n')
      .map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]),
  );
  script('delay', '0');
  admin = postgres(urls.DATABASE_DIRECT_URL!, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
}, 120_000);

afterAll(async () => {
  for (const c of children) c.kill('SIGTERM');
  await Promise.all(children.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))));
  script('delay', '0');
  script('start-replica');
  await admin.unsafe(`drop database if exists ${dbName} with (force)`);
  await admin.end();
}, 120_000);

it('migrates from two processes at once through the pooler', async () => {
  const migrate = () =>
    new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(tsx, ['server/cli.ts', 'migrate'], { env: hubEnv(false), stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      child.on('exit', (code) => resolve({ code, out }));
    });
  const results = await Promise.all([migrate(), migrate()]);
  for (const r of results) expect(r.code, r.out).toBe(0);
  const db = postgres(forDatabase(urls.DATABASE_DIRECT_URL!), { max: 1, onnotice: () => {} });
  try {
    const [{ n }] = (await db`select count(*)::int as n from drizzle.__drizzle_migrations`) as unknown as [
      { n: number },
    ];
    const journal = JSON.parse(fs.readFileSync('drizzle/meta/_journal.json', 'utf8')) as { entries: unknown[] };
    expect(n).toBe(journal.entries.length);
  } finally {
    await db.end();
  }
  // Then three Hub processes start at once, each migrating (nothing left to do) through the same lock.
  const [a, b, primary, production] = await Promise.all([
    startHub(true, `scale-admin@example.test:admin,${OWNERS}`),
    startHub(true),
    startHub(false),
    // The production edge (its /readyz), on the same topology.
    startHub(true, '', 'tests/fixtures/edge-process.ts'),
  ]);
  [hubA, hubB, primaryHub, edge] = [a.url, b.url, primary.url, production.url];
  tokens = a.tokens;
  adminJwt = tokens['scale-admin@example.test']!;
  expect(adminJwt).toBeTruthy();
}, 120_000);

it('a catalog write through one process reaches the other process', async () => {
  const { category } = await ok(hubA, '/admin/categories', 'POST', { name: 'Scale', slug: 'scale' });
  expect((await call(hubB, '/catalog/templates?category=scale')).body.templates).toEqual([]); // cached in B
  await ok(hubA, '/admin/templates', 'POST', {
    name: 'Scale one',
    slug: 'scale-one',
    category_id: category.id,
    image_name: 'x/scale',
  });
  const deadline = Date.now() + 1000;
  let seen = 0;
  while (Date.now() < deadline && seen === 0)
    seen = (await call(hubB, '/catalog/templates?category=scale')).body.templates.length;
  expect(seen).toBe(1);
});

/** One sample of a process's /metrics (summed over the series that match the labels given). */
async function metric(base: string, name: string, labels = ''): Promise<number> {
  const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  let sum = 0;
  for (const line of (await res.text()).split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      if (line.includes(labels)) sum += Number(line.split(' ').at(-1));
  }
  return sum;
}

type Client = { name: string; token: string | null; since: string; state: Map<string, string> };

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

async function listedByPrimary(c: Client) {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const res = await call(primaryHub, `/catalog/templates?limit=100&page=${page}`, { token: c.token });
    expect(res.status).toBe(200);
    ids.push(...res.body.templates.map((t: { id: string }) => t.id));
    if (page >= res.body.pagination.totalPages) break;
  }
  return ids.sort();
}

let syncs = 0;
async function sync(c: Client) {
  // Alternate between the two processes: a client's next poll may reach either behind a balancer.
  const base = syncs++ % 2 === 0 ? hubA : hubB;
  for (let more = true; more;) {
    const res = await call(base, `/catalog/templates/updates?since=${encodeURIComponent(c.since)}`, { token: c.token });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    for (const t of res.body.templates) c.state.set(t.id, t.updated_at);
    for (const r of res.body.removed) c.state.delete(r.id);
    c.since = res.body.checked_at;
    more = res.body.has_more;
  }
}

/** Every client syncs until its copy is what the primary lists for it: within a second (the replica lags 2 s). */
async function expectConverged(clients: Client[], step: string) {
  for (const c of clients) {
    const expected = await listedByPrimary(c);
    const deadline = Date.now() + 1000;
    let copy: string[];
    do {
      await sync(c);
      copy = [...c.state.keys()].sort();
    } while (JSON.stringify(copy) !== JSON.stringify(expected) && Date.now() < deadline);
    expect(copy, `${c.name} after ${step}`).toEqual(expected);
  }
}

async function randomRun(
  seed: number,
  steps: number,
  options: { midway?: () => Promise<void>; pauseMs?: number } = {},
) {
  const random = rng(seed);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const suffix = `${seed}`;
  const orgs: { id: string }[] = [];
  const clients: Client[] = [{ name: 'anonymous', token: null, since: '2000-01-01T00:00:00Z', state: new Map() }];
  for (const name of ['a', 'b']) {
    const ownerJwt = tokens[`scale-owner-${suffix}${name}@example.test`]!;
    const org = (
      await ok(
        hubA,
        '/account/organizations',
        'POST',
        { name: `Scale ${name}${suffix}`, slug: `scale-${name}${suffix}` },
        ownerJwt,
      )
    ).organization;
    orgs.push(org);
    const key = await ok(hubA, '/account/api-keys', 'POST', { name: `fleet ${name}` }, ownerJwt);
    clients.push({ name: `key ${name}`, token: key.apiKey.key, since: '2000-01-01T00:00:00Z', state: new Map() });
  }
  const categories: { id: string; private: boolean }[] = [];
  for (let i = 0; i < 3; i++) {
    const { category } = await ok(hubA, '/admin/categories', 'POST', {
      name: `Conv ${suffix} ${i}`,
      slug: `conv-${suffix}-${i}`,
      is_private: i === 2,
    });
    categories.push({ id: category.id, private: category.is_private });
  }
  const templates: string[] = [];
  let n = 0;
  const operations: (() => Promise<void>)[] = [
    async () => {
      const { template } = await ok(hubA, '/admin/templates', 'POST', {
        name: `Conv ${suffix} template ${n}`,
        slug: `conv-${suffix}-t-${n++}`,
        category_id: pick(categories).id,
        image_name: 'example/conv',
        is_public: random() < 0.7,
        org_id: random() < 0.3 ? pick(orgs).id : null,
      });
      templates.push(template.id);
    },
    async () =>
      void (await ok(hubB, '/admin/templates', 'PUT', { id: pick(templates), description: `changed ${random()}` })),
    async () => void (await ok(hubA, '/admin/templates', 'PUT', { id: pick(templates), is_public: random() < 0.5 })),
    async () =>
      void (await ok(hubB, '/admin/templates', 'PUT', { id: pick(templates), category_id: pick(categories).id })),
    async () =>
      void (await ok(hubA, '/admin/templates', 'PUT', {
        id: pick(templates),
        org_id: pick([...orgs.map((o) => o.id), null]),
      })),
    async () => {
      if (templates.length < 3) return;
      await ok(hubB, '/admin/templates', 'DELETE', {
        id: templates.splice(Math.floor(random() * templates.length), 1)[0]!,
      });
    },
    async () => {
      const cat = pick(categories);
      cat.private = !cat.private;
      await ok(hubA, '/admin/categories', 'PUT', { id: cat.id, is_private: cat.private });
    },
    async () => {
      const cat = categories.find((c) => c.private);
      if (!cat) return;
      const org = pick(orgs);
      const grants = (await call(hubA, '/admin/catalog-access', { token: adminJwt })).body.grants as {
        id: string;
        org_id: string;
        category_id: string;
      }[];
      const existing = grants.find((g) => g.org_id === org.id && g.category_id === cat.id);
      if (existing) await ok(hubA, `/admin/catalog-access?id=${existing.id}`, 'DELETE');
      else await ok(hubA, '/admin/catalog-access', 'POST', { org_id: org.id, category_id: cat.id });
    },
  ];
  for (let i = 0; i < 6; i++) await operations[0]!();
  await expectConverged(clients, 'initial creates');
  for (let i = 0; i < steps; i++) {
    if (i === Math.floor(steps / 2)) await options.midway?.();
    await pick(operations)();
    // Now and then long enough for the lagging replica to replay the writes: its reads are used again.
    if (options.pauseMs && i % 8 === 7) await new Promise((r) => setTimeout(r, options.pauseMs));
    await expectConverged(clients, `step ${i}`);
  }
  // Not vacuous: the clients saw different, non-empty catalogs.
  const sizes = clients.map((c) => c.state.size);
  expect(Math.max(...sizes)).toBeGreaterThan(0);
  expect(new Set(sizes).size).toBeGreaterThan(1);
}

it('instances converge to what the primary lists while the replica lags 2 s', async () => {
  script('delay', '2000');
  const before =
    (await metric(hubA, 'hub_catalog_reads_total', 'target="replica"')) +
    (await metric(hubB, 'hub_catalog_reads_total', 'target="replica"'));
  await randomRun(7, 24, { pauseMs: 2_500 });
  // Not vacuous: the replica served reads (between writes, once it had replayed them), and was seen lagging.
  const after =
    (await metric(hubA, 'hub_catalog_reads_total', 'target="replica"')) +
    (await metric(hubB, 'hub_catalog_reads_total', 'target="replica"'));
  expect(after).toBeGreaterThan(before);
  expect(await metric(hubA, 'hub_catalog_reads_total', 'target="primary"')).toBeGreaterThan(0);
}, 180_000);

async function readyReplicas() {
  const res = await fetch(`${edge}/readyz`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { replicas: { state: string; url: string }[] }).replicas;
}

it('instances converge when the replica stops mid-run; the processes report it down', async () => {
  script('delay', '0');
  // Two monitor rounds (one a second): the replica's replay position and the lag computed from it.
  await new Promise((r) => setTimeout(r, 2500));
  expect(await readyReplicas()).toEqual([
    expect.objectContaining({ state: 'ok', url: expect.stringContaining(':5633/') }),
  ]);
  let stoppedAt = 0;
  await randomRun(11, 16, {
    midway: async () => {
      script('stop-replica');
      stoppedAt = Date.now();
    },
  });
  // Each process learns of the stop from a failed read or from its monitor (a round a second); the edge process
  // serves no catalog read, so from its monitor alone. Two rounds after the stop, every one of them knows.
  await new Promise((r) => setTimeout(r, Math.max(0, stoppedAt + 2_000 - Date.now())));
  expect(await metric(hubA, 'hub_replica_up')).toBe(0);
  expect(await metric(hubB, 'hub_replica_up')).toBe(0);
  expect(await metric(hubB, 'hub_http_requests_total', 'status="5')).toBe(0);
  // Still ready (the primary serves), and says the replica is down.
  expect(await readyReplicas()).toEqual([expect.objectContaining({ state: 'down' })]);
}, 180_000);

it('the Hub’s connections through the pooler answer every query under concurrency, transactions included', async () => {
  // postgres.js pipelines a query behind one still running; PgBouncer in transaction mode hands the server
  // connection back at the first ReadyForQuery, the second query's answers arrive for nobody, and that connection
  // hangs with every query queued on it (the fleet bench hung this way). The Hub's options say one at a time.
  const sql = postgres(forDatabase(urls.DATABASE_URL!), connectionOptions('transaction', 2));
  try {
    const answered = Promise.all(
      Array.from({ length: 300 }, (_, i) => (i % 3 ? sql`select ${i}::int as i` : sql`select 1 as one`)),
    );
    const hung = new Promise((_, reject) => setTimeout(() => reject(new Error('queries hung in the pooler')), 15_000));
    expect(await Promise.race([answered, hung])).toHaveLength(300);
    const inTransaction = await sql.begin(async (tx) => [await tx`select ${1}::int as a`, await tx`select 2 as b`]);
    expect(inTransaction.map((rows) => rows[0])).toEqual([{ a: 1 }, { b: 2 }]);
  } finally {
    await sql.end({ timeout: 1 });
  }
}, 60_000);

it('/metrics is behind its token', async () => {
  expect((await fetch(`${hubA}/metrics`)).status).toBe(401);
  expect((await fetch(`${hubA}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
});

it('the pooler holds at most its pool size of server connections to the database', async () => {
  const [{ n }] = (await admin`select count(*)::int as n from pg_stat_activity
      where datname = ${dbName} and application_name not in ('hub-direct', 'hub-read')`) as unknown as [{ n: number }];
  expect(n).toBeGreaterThan(0);
  expect(n).toBeLessThanOrEqual(POOL_SIZE);
});

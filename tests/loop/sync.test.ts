/**
 * Catalog sync between real processes: a seeded random sequence of catalog changes at the Hub (create,
 * update, delete, make private, move to a private category, change owner, grant, revoke) → after one sync
 * Core's copy equals what the Hub lists for Core's key. Then the Hub is stopped: Core keeps serving its copy,
 * shows the error, and recovers by itself when the Hub is back. Then the key is revoked: Core says so and stops.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hubOk, organizationWithKey } from './hub-account';
import {
  call,
  coreStore,
  eventually,
  hubStore,
  reverseProxy,
  startCore,
  startHub,
  TEMP_ADMIN,
  type CoreProc,
  type CoreStore,
  type HubProc,
  type HubStore,
} from './processes';

const ROOT = 'root@sync.test'; // Hub superadmin: changes the catalog
const ALICE = 'alice@sync.test'; // admin of the organization whose key Core holds
const BOB = 'bob@sync.test'; // another organization
const SEED = Number(process.env.SYNC_TEST_SEED ?? 20261126);

let hubDb: HubStore, coreDb: CoreStore, hub: HubProc, core: CoreProc;
let proxy: Awaited<ReturnType<typeof reverseProxy>>;
const CORE_PUBLIC_ADDRESS = '203.0.113.9';
let key: { id: string; key: string };
let coreAdmin: string;
let root: string;
let orgs: { mine: string; other: string };

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

/** Every template the key sees at the Hub, without the per-read download counter. */
async function hubView() {
  const all: any[] = [];
  for (let page = 1; ; page++) {
    const res = await hubOk(hub.url, `/catalog/templates?limit=100&page=${page}`, key.key);
    all.push(...res.templates);
    if (page >= res.pagination.totalPages) break;
  }
  return all.map(({ download_count: _d, ...t }) => t).sort((a, b) => a.id.localeCompare(b.id));
}

async function coreView() {
  const all: any[] = [];
  for (let page = 1; ; page++) {
    const res = await call(core.url, `/api/v1/catalog/templates?limit=100&page=${page}`, { token: coreAdmin });
    expect(res.status).toBe(200);
    all.push(...res.body.templates);
    if (page >= res.body.pagination.totalPages || res.body.templates.length === 0) break;
  }
  return all.map(({ download_count: _d, ...t }) => t).sort((a, b) => a.id.localeCompare(b.id));
}

async function syncCore() {
  const res = await call(core.url, '/api/v1/catalog/sync', { method: 'POST', token: coreAdmin });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { added: number; updated: number; removed: number; checked_at: string; not_modified: boolean };
}

async function expectConverged(step: string) {
  await syncCore();
  expect(await coreView(), `Core's copy after ${step} (seed ${SEED})`).toEqual(await hubView());
}

beforeAll(async () => {
  [hubDb, coreDb] = await Promise.all([hubStore(), coreStore()]);
  // The Hub behind a reverse proxy it trusts: Core's requests arrive from a public address, as in production.
  hub = await startHub(hubDb, {
    users: [`${ROOT}:superadmin`, `${ALICE}:user`, `${BOB}:user`],
    seed: true,
    env: { HUB_TRUSTED_PROXIES: '127.0.0.1' },
  });
  proxy = await reverseProxy(() => hub.url, CORE_PUBLIC_ADDRESS);
  root = hub.jwts.get(ROOT)!;
  const mine = await organizationWithKey(hub.url, hub.jwts.get(ALICE)!, 'sync-mine');
  key = mine.key;
  const other = await hubOk(hub.url, '/account/organizations', hub.jwts.get(BOB)!, 'POST', {
    name: 'Other',
    slug: 'sync-other',
  });
  orgs = { mine: mine.org.id, other: other.organization.id };
  // The environment's connection (it wins over settings). The loop runs every 2 s beside the test's own syncs (they never overlap).
  // CORE_HUB_DNS: Core keeps its dynamic DNS record at the Hub current, from its registration on.
  core = await startCore(coreDb, {
    CORE_HUB_URL: proxy.url,
    CORE_HUB_INSTANCE_KEY: key.key,
    CORE_HUB_SYNC_INTERVAL: '2',
    CORE_HUB_DNS: 'true',
  });
  coreAdmin = (
    await call(core.url, '/api/v1/auth/login', {
      method: 'POST',
      body: { username: TEMP_ADMIN.username, password: TEMP_ADMIN.password },
    })
  ).body.access_token;
}, 180_000);

afterAll(async () => {
  await core?.stop();
  await proxy?.close();
  await hub?.stop();
  await Promise.all([hubDb?.drop(), coreDb?.drop()]);
});

it('converges with the Hub after a seeded random sequence of catalog changes', async () => {
  const settings = await eventually('the first sync', async () => {
    const s = (await call(core.url, '/api/v1/settings/hub', { token: coreAdmin })).body;
    return s.last_sync_at ? s : undefined;
  });
  expect(settings).toMatchObject({
    configured: true,
    source: 'environment',
    connected: true,
    instance_id: key.id,
    organization: { slug: 'sync-mine' },
  });
  expect(await coreView()).toEqual(await hubView());
  // The environment wins: the settings page cannot replace or remove that connection.
  expect(
    (
      await call(core.url, '/api/v1/settings/hub', {
        method: 'PUT',
        token: coreAdmin,
        body: { hub_url: hub.url, instance_key: key.key },
      })
    ).status,
  ).toBe(409);
  expect((await call(core.url, '/api/v1/settings/hub', { method: 'DELETE', token: coreAdmin })).status).toBe(409);

  const random = rng(SEED);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const ok = (p: string, method: string, body?: unknown) => hubOk(hub.url, p, root, method, body);
  const categories: { id: string; private: boolean }[] = [];
  for (let i = 0; i < 3; i++) {
    const { category } = await ok('/admin/categories', 'POST', {
      name: `Sync ${i}`,
      slug: `sync-${i}`,
      is_private: i === 2,
    });
    categories.push({ id: category.id, private: category.is_private });
  }
  const templates: string[] = [];
  let n = 0;
  const operations: Record<string, () => Promise<void>> = {
    create: async () => {
      const { template } = await ok('/admin/templates', 'POST', {
        name: `Sync template ${n}`,
        slug: `sync-t-${n++}`,
        category_id: pick(categories).id,
        image_name: 'example/sync',
        is_public: random() < 0.7,
        org_id: random() < 0.3 ? pick([orgs.mine, orgs.other]) : null,
        env_schema: [{ name: 'MODE', required: random() < 0.5, default_value: '', description: 'mode' }],
      });
      templates.push(template.id);
    },
    update: async () =>
      void (await ok('/admin/templates', 'PUT', { id: pick(templates), description: `changed ${random()}` })),
    'make private or public': async () => {
      const id = pick(templates);
      const current = (await ok('/admin/templates?limit=100', 'GET')).templates.find((t: any) => t.id === id);
      await ok('/admin/templates', 'PUT', { id, is_public: !current.is_public });
    },
    'move to a private category': async () => {
      await ok('/admin/templates', 'PUT', {
        id: pick(templates),
        category_id: (categories.find((c) => c.private) ?? pick(categories)).id,
      });
    },
    'move to any category': async () =>
      void (await ok('/admin/templates', 'PUT', { id: pick(templates), category_id: pick(categories).id })),
    'change owner': async () =>
      void (await ok('/admin/templates', 'PUT', { id: pick(templates), org_id: pick([orgs.mine, orgs.other, null]) })),
    delete: async () => {
      if (templates.length < 3) return;
      await ok('/admin/templates', 'DELETE', { id: templates.splice(Math.floor(random() * templates.length), 1)[0]! });
    },
    'grant or revoke': async () => {
      const cat = categories.find((c) => c.private);
      if (!cat) return;
      const grants = (await ok('/admin/catalog-access', 'GET')).grants as any[];
      const existing = grants.find((g) => g.org_id === orgs.mine && g.category_id === cat.id);
      if (existing) await ok(`/admin/catalog-access?id=${existing.id}`, 'DELETE');
      else await ok('/admin/catalog-access', 'POST', { org_id: orgs.mine, category_id: cat.id });
    },
    'category privacy': async () => {
      const cat = pick(categories);
      cat.private = !cat.private;
      await ok('/admin/categories', 'PUT', { id: cat.id, is_private: cat.private });
    },
  };
  for (let i = 0; i < 6; i++) await operations.create!();
  for (const [name, op] of Object.entries(operations)) {
    await op();
    await expectConverged(name);
  }
  const names = Object.keys(operations);
  let changes = 0;
  for (let i = 0; i < 30; i++) {
    await operations[pick(names)]!();
    if (i % 6 === 5) {
      const counts = await syncCore();
      changes += counts.added + counts.updated + counts.removed;
      if (counts.added + counts.updated + counts.removed > 0) expect(counts.not_modified).toBe(false);
      expect(await coreView(), `random step ${i} (seed ${SEED})`).toEqual(await hubView());
    }
  }
  expect(changes).toBeGreaterThan(0); // the syncs did work, not only confirm an unchanged copy
  // An idle sync changes nothing; from the second on, the poll is the same request as the one before
  // (checked_at stays put) and the Hub answers 304 to its If-None-Match.
  expect(await syncCore()).toMatchObject({ added: 0, updated: 0, removed: 0 });
  expect(await syncCore()).toMatchObject({ added: 0, updated: 0, removed: 0, not_modified: true });
});

it('publishes its dynamic DNS record at the Hub (CORE_HUB_DNS=true): the address it connects from, as the Hub sees it', async () => {
  const record = await eventually('the DNS record at the Hub', async () => {
    const res = await call(hub.url, '/api/v1/dns', { token: key.key });
    return res.status === 200 ? res.body.record : undefined;
  });
  expect(record).toMatchObject({ ip: CORE_PUBLIC_ADDRESS, hostname: expect.stringContaining('.') });
});

it('keeps serving its copy while the Hub is down, says why, and recovers by itself', async () => {
  const before = await coreView();
  await hub.stop();
  const failed = await call(core.url, '/api/v1/catalog/sync', { method: 'POST', token: coreAdmin });
  expect(failed.status).toBe(502);
  expect(failed.body.message).toMatch(/unreachable/);
  expect(await coreView()).toEqual(before);
  const down = (await call(core.url, '/api/v1/settings/hub', { token: coreAdmin })).body;
  expect(down).toMatchObject({
    connected: false,
    key_refused: false,
    last_error: expect.stringMatching(/unreachable/),
  });

  hub = await startHub(hubDb, { port: hub.port, users: [`${ALICE}:user`], env: { HUB_TRUSTED_PROXIES: '127.0.0.1' } });
  const { template } = await hubOk(hub.url, '/admin/templates', root, 'POST', {
    name: 'After the outage',
    slug: 'after-outage',
    category_id: before[0].category_id,
    image_name: 'example/x',
    is_public: true,
  });
  // No manual sync: the loop backs off and comes back on its own.
  await eventually(
    'the loop to sync after the outage',
    async () => (await call(core.url, '/api/v1/catalog/templates/after-outage', { token: coreAdmin })).status === 200,
    45_000,
  );
  const recovered = (await call(core.url, '/api/v1/settings/hub', { token: coreAdmin })).body;
  expect(recovered).toMatchObject({ connected: true, last_error: null });
  expect((await coreView()).map((t) => t.id)).toContain(template.id);
});

it('says so and stops syncing when the Hub refuses the key (revoked)', async () => {
  await hubOk(hub.url, '/account/api-keys', hub.jwts.get(ALICE)!, 'DELETE', { id: key.id });
  const res = await call(core.url, '/api/v1/catalog/sync', { method: 'POST', token: coreAdmin });
  expect(res.status).toBe(502);
  expect(res.body.message).toMatch(/refused the instance key/);
  const settings = (await call(core.url, '/api/v1/settings/hub', { token: coreAdmin })).body;
  expect(settings).toMatchObject({
    connected: false,
    key_refused: true,
    last_error: expect.stringMatching(/refused the instance key/),
  });
  // The copy is still served.
  expect(
    (await call(core.url, '/api/v1/catalog/templates', { token: coreAdmin })).body.pagination.total,
  ).toBeGreaterThan(0);
});

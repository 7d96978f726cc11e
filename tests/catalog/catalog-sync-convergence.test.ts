/**
 * Incremental sync converges: clients that apply `templates` then drop `removed`, using checked_at as
 * the next since, end with exactly what the list shows them — after creates, updates, deletes, privacy
 * changes, category moves, ownership changes and grant changes made through the admin API.
 * One client per caller kind; the operations are a fixed pseudo-random sequence (seeded).
 */
import { beforeAll, expect, it } from 'vitest';
import { api, createKey, createOrg, createUser } from '../helpers';

type Client = { token: string | null; since: string; state: Map<string, string> };

let admin: string;
let orgA: { id: string };
let orgB: { id: string };
const clients: Record<string, Client> = {};

function rng(seed: number) {
  return () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

async function ok(path: string, method: string, body: unknown) {
  const res = await api(path, { method, token: admin, body });
  expect(res.status, `${method} ${path} ${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

async function sync(c: Client) {
  const res = await api(`/catalog/templates/updates?since=${encodeURIComponent(c.since)}`, { token: c.token });
  expect(res.status).toBe(200);
  for (const t of res.body.templates) c.state.set(t.id, t.updated_at);
  for (const r of res.body.removed) c.state.delete(r.id);
  c.since = res.body.checked_at;
}

async function listed(c: Client) {
  const ids: string[] = [];
  for (let page = 1; ; page++) {
    const res = await api(`/catalog/templates?limit=100&page=${page}`, { token: c.token });
    ids.push(...res.body.templates.map((t: any) => t.id));
    if (page >= res.body.pagination.totalPages) break;
  }
  return ids.sort();
}

async function expectConverged(step: string) {
  for (const [name, c] of Object.entries(clients)) {
    await sync(c);
    expect([...c.state.keys()].sort(), `${name} after ${step}`).toEqual(await listed(c));
  }
}

beforeAll(async () => {
  admin = (await createUser({ role: 'admin' })).token;
  orgA = await createOrg();
  orgB = await createOrg();
  const epoch = '2000-01-01T00:00:00Z';
  clients.anonymous = { token: null, since: epoch, state: new Map() };
  clients.keyA = { token: (await createKey(orgA.id)).secret, since: epoch, state: new Map() };
  clients.keyB = { token: (await createKey(orgB.id)).secret, since: epoch, state: new Map() };
  clients.admin = { token: admin, since: epoch, state: new Map() };
});

it('every client converges after each kind of change', async () => {
  const random = rng(42);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)]!;
  const categories: { id: string; private: boolean }[] = [];
  for (let i = 0; i < 3; i++) {
    const { category } = await ok('/admin/categories', 'POST', {
      name: `Conv ${i}`,
      slug: `conv-${i}`,
      is_private: i === 2,
    });
    categories.push({ id: category.id, private: category.is_private });
  }
  const templates: string[] = [];
  let n = 0;
  const create = async () => {
    const cat = pick(categories);
    const { template } = await ok('/admin/templates', 'POST', {
      name: `Conv template ${n}`,
      slug: `conv-t-${n++}`,
      category_id: cat.id,
      image_name: 'example/conv',
      is_public: random() < 0.7,
      org_id: random() < 0.3 ? pick([orgA.id, orgB.id]) : null,
    });
    templates.push(template.id);
  };
  for (let i = 0; i < 8; i++) await create();
  await expectConverged('initial creates');

  const operations: Record<string, () => Promise<void>> = {
    create,
    'content update': async () => {
      await ok('/admin/templates', 'PUT', { id: pick(templates), description: `changed ${random()}` });
    },
    'toggle public': async () => {
      const id = pick(templates);
      const current = (await api(`/admin/templates?limit=100`, { token: admin })).body.templates.find(
        (t: any) => t.id === id,
      );
      await ok('/admin/templates', 'PUT', { id, is_public: !current.is_public });
    },
    'move category': async () => {
      await ok('/admin/templates', 'PUT', { id: pick(templates), category_id: pick(categories).id });
    },
    'change owner': async () => {
      await ok('/admin/templates', 'PUT', { id: pick(templates), org_id: pick([orgA.id, orgB.id, null]) });
    },
    delete: async () => {
      if (templates.length < 3) return;
      const id = templates.splice(Math.floor(random() * templates.length), 1)[0]!;
      await ok('/admin/templates', 'DELETE', { id });
    },
    'toggle category privacy': async () => {
      const cat = pick(categories);
      cat.private = !cat.private;
      await ok('/admin/categories', 'PUT', { id: cat.id, is_private: cat.private });
    },
    'grant or revoke': async () => {
      const cat = categories.find((c) => c.private) ?? categories[2]!;
      if (!cat.private) return;
      const org = pick([orgA, orgB]);
      const grants = (await api('/admin/catalog-access', { token: admin })).body.grants as any[];
      const existing = grants.find((g) => g.org_id === org.id && g.category_id === cat.id);
      if (existing) await ok(`/admin/catalog-access?id=${existing.id}`, 'DELETE', undefined);
      else await ok('/admin/catalog-access', 'POST', { org_id: org.id, category_id: cat.id });
    },
  };

  // Each kind of change once, then a longer random mix with syncs only every few steps.
  for (const [name, op] of Object.entries(operations)) {
    await op();
    await expectConverged(name);
  }
  const names = Object.keys(operations);
  for (let i = 0; i < 40; i++) {
    await operations[pick(names)]!();
    if (i % 5 === 4) await expectConverged(`random step ${i}`);
  }
  await expectConverged('the end');
  // The convergence was not vacuous: clients saw different, non-empty catalogs.
  const sizes = Object.values(clients).map((c) => c.state.size);
  expect(Math.max(...sizes)).toBeGreaterThan(0);
  expect(clients.admin!.state.size).toBeGreaterThan(clients.anonymous!.state.size);
});

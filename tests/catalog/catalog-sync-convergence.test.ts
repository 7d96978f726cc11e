/**
 * Incremental sync converges: clients that apply `templates` then drop `removed`, using checked_at as
 * the next since, end with exactly what the list shows them — after creates, updates, deletes, privacy
 * changes, category moves, ownership changes and grant changes made through the admin API.
 * One client per caller kind; the operations are a fixed pseudo-random sequence (seeded).
 */
import { beforeAll, expect, it } from 'vitest';
import { api, createKey, createOrg, createUser } from '../helpers';
import { catalogChanges } from '../fixtures/catalog-changes';

type Client = { token: string | null; since: string; state: Map<string, string> };

let admin: string;
let orgA: { id: string };
let orgB: { id: string };
const clients: Record<string, Client> = {};

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
  const { pick, create, addCategories, operations } = catalogChanges({
    admin,
    orgs: [orgA, orgB],
    seed: 42,
    prefix: 'conv',
  });
  await addCategories();
  for (let i = 0; i < 8; i++) await create();
  await expectConverged('initial creates');

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

/**
 * What Core's catalog pages need (issue 21): templates sorted by name case-insensitively (code-server and
 * vLLM between Caddy and WordPress), the categories with their counts, the category filter.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hubConnection } from '../src/db/schema';
import { applySync, type CatalogTemplate } from '../src/domain/catalog';
import { coreWithAdmin } from './helpers';

let env: Awaited<ReturnType<typeof coreWithAdmin>>;
const template = (name: string, category: [string, string]): CatalogTemplate => ({
  id: randomUUID(),
  slug: name.toLowerCase(),
  name,
  description: `${name} template`,
  version: '1',
  category_slug: category[0],
  category_name: category[1],
  updated_at: new Date().toISOString(),
  env: [],
  env_schema: [],
});

beforeAll(async () => {
  env = await coreWithAdmin();
  const generation = new Date('2026-01-01T00:00:00Z');
  await env.t.core.db
    .insert(hubConnection)
    .values({ hubUrl: 'http://hub.test', keyPrefix: 'svh_test', instanceId: randomUUID(), connectedAt: generation });
  const web: [string, string] = ['web', 'Web servers'];
  const ai: [string, string] = ['ai', 'AI and machine learning'];
  const templates = [
    template('WordPress', web),
    template('vLLM', ai),
    template('Caddy', web),
    template('code-server', ['dev', 'developer tools']),
    template('Ollama', ai),
  ];
  await applySync(env.t.core.db, {
    full: true,
    templates,
    removedIds: [],
    checkedAt: '2026-01-01T00:00:01Z',
    etag: null,
    generation,
  });
});
afterAll(async () => env?.stop());

it('sorts templates by name whatever their case', async () => {
  const res = await env.t.call('GET', '/api/v1/catalog/templates', { token: env.admin });
  expect(res.body.templates.map((t: { name: string }) => t.name)).toEqual([
    'Caddy',
    'code-server',
    'Ollama',
    'vLLM',
    'WordPress',
  ]);
});

it('lists the categories with their counts and filters by one', async () => {
  const res = await env.t.call('GET', '/api/v1/catalog/categories', { token: env.admin });
  expect(res.status).toBe(200);
  expect(res.body.categories).toEqual([
    { slug: 'ai', name: 'AI and machine learning', count: 2 },
    { slug: 'dev', name: 'developer tools', count: 1 },
    { slug: 'web', name: 'Web servers', count: 2 },
  ]);
  const ai = await env.t.call('GET', '/api/v1/catalog/templates?category=ai', { token: env.admin });
  expect(ai.body.templates.map((t: { name: string }) => t.name)).toEqual(['Ollama', 'vLLM']);
  expect((await env.t.call('GET', '/api/v1/catalog/categories')).status).toBe(401);
});

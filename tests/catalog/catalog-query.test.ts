/** List parameters: pagination rules, filters alone and combined, route order, and bad values → 400. */
import { beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { execRows, getDb } from '../../server/db/client';
import { api, createCategory, createTemplate } from '../helpers';

const slugs = (res: { body: any }) => res.body.templates.map((t: any) => t.slug);

beforeAll(async () => {
  const web = await createCategory({ slug: 'q-web' });
  const db = await createCategory({ slug: 'q-db' });
  // 120 filler templates for paging, in the web category, names q-fill-000 … q-fill-119.
  for (let i = 0; i < 120; i++) {
    await createTemplate({
      slug: `q-fill-${String(i).padStart(3, '0')}`,
      name: `q-fill-${String(i).padStart(3, '0')}`,
      categoryId: web.id,
      description: 'filler',
    });
  }
  await createTemplate({
    slug: 'q-postgres',
    name: 'PostgreSQL',
    description: 'The relational database',
    categoryId: db.id,
    tags: ['sql', 'relational'],
    isFeatured: true,
  });
  await createTemplate({
    slug: 'q-mariadb',
    name: 'MariaDB',
    description: 'A MySQL-compatible SQL server',
    categoryId: db.id,
    tags: ['sql'],
  });
  await createTemplate({
    slug: 'q-redis',
    name: 'Redis',
    description: 'In-memory key-value store',
    categoryId: db.id,
    tags: ['cache', 'key-value'],
  });
  await createTemplate({
    slug: 'q-nginx',
    name: 'NGINX',
    description: 'Web server and reverse proxy (100% fast_cgi)',
    categoryId: web.id,
    tags: ['http'],
    isFeatured: true,
  });
});

describe('pagination', () => {
  it('defaults to page 1 and limit 50', async () => {
    const res = await api('/catalog/templates');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, limit: 50, total: 124, totalPages: 3 });
    expect(res.body.templates).toHaveLength(50);
  });

  it('clamps limit to 100 and reports the limit used', async () => {
    const res = await api('/catalog/templates?limit=500');
    expect(res.status).toBe(200);
    expect(res.body.pagination).toEqual({ page: 1, limit: 100, total: 124, totalPages: 2 });
    expect(res.body.templates).toHaveLength(100);
  });

  it('pages through everything exactly once in a stable order (featured first, then name)', async () => {
    const seen: string[] = [];
    for (let page = 1; page <= 5; page++) {
      const res = await api(`/catalog/templates?limit=30&page=${page}`);
      expect(res.body.pagination).toEqual({ page, limit: 30, total: 124, totalPages: 5 });
      seen.push(...slugs(res));
    }
    expect(seen).toHaveLength(124);
    expect(new Set(seen).size).toBe(124);
    expect(seen.slice(0, 2)).toEqual(['q-nginx', 'q-postgres']); // featured, by name: NGINX < PostgreSQL
    expect(seen[2]).toBe('q-mariadb'); // then by name: MariaDB < NGINX… < q-fill-*
  });

  it('returns an empty page past the end with the true total', async () => {
    const res = await api('/catalog/templates?page=99');
    expect(res.status).toBe(200);
    expect(res.body.templates).toEqual([]);
    expect(res.body.pagination).toEqual({ page: 99, limit: 50, total: 124, totalPages: 3 });
  });
});

describe('filters', () => {
  it('filters by category slug', async () => {
    const res = await api('/catalog/templates?category=q-db');
    expect(slugs(res).sort()).toEqual(['q-mariadb', 'q-postgres', 'q-redis']);
  });

  it('searches name or description case-insensitively', async () => {
    expect(slugs(await api('/catalog/templates?search=postgres'))).toEqual(['q-postgres']);
    expect(slugs(await api('/catalog/templates?search=SQL')).sort()).toEqual(['q-mariadb', 'q-postgres']);
    expect(slugs(await api('/catalog/templates?search=key-VALUE'))).toEqual(['q-redis']);
  });

  it('treats LIKE wildcards in search literally', async () => {
    expect(slugs(await api('/catalog/templates?search=100%25'))).toEqual(['q-nginx']);
    expect(slugs(await api('/catalog/templates?search=fast_cgi'))).toEqual(['q-nginx']);
    expect(slugs(await api('/catalog/templates?search=%25%25%25'))).toEqual([]);
    expect(slugs(await api('/catalog/templates?search=_'))).toEqual(['q-nginx']);
  });

  it('featured=true keeps only featured templates; featured=false does not filter', async () => {
    expect(slugs(await api('/catalog/templates?featured=true')).sort()).toEqual(['q-nginx', 'q-postgres']);
    const all = await api('/catalog/templates?featured=false');
    expect(all.body.pagination.total).toBe(124);
  });

  it('tags match any of a comma-separated list', async () => {
    expect(slugs(await api('/catalog/templates?tags=cache,http')).sort()).toEqual(['q-nginx', 'q-redis']);
    expect(slugs(await api('/catalog/templates?tags=sql')).sort()).toEqual(['q-mariadb', 'q-postgres']);
    expect(slugs(await api('/catalog/templates?tags=nothing'))).toEqual([]);
  });

  it('combines filters with AND', async () => {
    expect(slugs(await api('/catalog/templates?category=q-db&tags=sql&featured=true'))).toEqual(['q-postgres']);
    expect(slugs(await api('/catalog/templates?category=q-web&search=sql'))).toEqual([]);
    expect(slugs(await api('/catalog/templates?category=q-db&search=server&tags=sql,cache'))).toEqual(['q-mariadb']);
    const res = await api('/catalog/templates?category=q-web&search=fill&limit=10&page=2');
    expect(res.body.pagination).toEqual({ page: 2, limit: 10, total: 120, totalPages: 12 });
    expect(slugs(res)[0]).toBe('q-fill-010');
  });
});

describe('routes', () => {
  it('does not capture /templates/updates as a slug', async () => {
    const res = await api('/catalog/templates/updates?since=2000-01-01T00:00:00Z');
    expect(res.status).toBe(200);
    expect(res.body).toHaveProperty('checked_at');
    expect(res.body.templates).toHaveLength(124);
  });

  it('404s an unknown slug and an unknown path with a JSON error', async () => {
    const missing = await api('/catalog/templates/no-such-template');
    expect(missing.status).toBe(404);
    expect(missing.body).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining('no-such-template') });
    const nowhere = await api('/catalog/nothing-here');
    expect(nowhere.status).toBe(404);
    expect(nowhere.body.code).toBe('NOT_FOUND');
  });
});

describe('bad values get 400 naming the parameter', () => {
  it.each([
    ['page=0', 'page'],
    ['page=-1', 'page'],
    ['page=abc', 'page'],
    ['page=1.5', 'page'],
    ['limit=0', 'limit'],
    ['limit=abc', 'limit'],
    ['featured=maybe', 'featured'],
    ['featured=1', 'featured'],
    ['page=1&page=2', 'page'],
  ])('%s', async (query, field) => {
    const res = await api(`/catalog/templates?${query}`);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.message).toContain(field);
  });

  it.each([
    ['', 'since'],
    ['?since=yesterday', 'since'],
    ['?since=2026-13-45T00:00:00Z', 'since'],
  ])('updates%s', async (query, field) => {
    const res = await api(`/catalog/templates/updates${query}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
  });

  it('a search longer than 200 characters', async () => {
    const res = await api(`/catalog/templates?search=${'x'.repeat(201)}`);
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('search');
  });
});

describe('query execution', () => {
  it('runs without JIT compilation on the Hub connection (PostgreSQL compiles costly plans in 100–300 ms otherwise)', async () => {
    // pg_jit_available() is false on PGlite (no LLVM) and true on a PostgreSQL built with it, where the
    // Hub's connection must have jit off.
    const [row] = await execRows<{ jit: boolean }>(
      await getDb(),
      sql`select pg_jit_available() and current_setting('jit')::boolean as jit`,
    );
    expect(row!.jit).toBe(false);
  });
});

/**
 * Limits on what one request may cost: the tRPC endpoint refuses long batches and bodies over the REST
 * limit (before parsing them), and the catalog's response cache keys on the parameters a procedure reads
 * only, so unknown query parameters cannot fill it.
 */
import { expect, it } from 'vitest';
import { GET, POST } from '../../app/api/trpc/[trpc]/route';
import { MAX_BODY_BYTES } from '../../server/api/rest';
import { api, createCategory, createTemplate } from '../helpers';
import { reloadConfig } from '../../server/config';

const responseCache = () => (globalThis as { __hubResponseCache?: { size: number } }).__hubResponseCache!;

function batchGet(calls: number) {
  const paths = Array.from({ length: calls }, () => 'catalog.listCategories').join(',');
  const input = Object.fromEntries(Array.from({ length: calls }, (_, i) => [i, {}]));
  return GET(
    new Request(`http://hub.test/api/trpc/${paths}?batch=1&input=${encodeURIComponent(JSON.stringify(input))}`),
  );
}

it('a tRPC batch of 10 calls runs; 11 or 1,000 are refused with 400 before any runs', async () => {
  const ten = await batchGet(10);
  expect(ten.status).toBe(200);
  expect(await ten.json()).toHaveLength(10);
  for (const calls of [11, 1_000]) {
    const res = await batchGet(calls);
    expect(res.status).toBe(400);
    expect(JSON.stringify(await res.json())).toMatch(/batch/i);
  }
});

it('a tRPC body over the REST limit is refused with 413 {code, message}', async () => {
  const big = JSON.stringify({ 0: { name: 'x'.repeat(MAX_BODY_BYTES) } });
  const res = await POST(
    new Request('http://hub.test/api/trpc/account.updateProfile?batch=1', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: big,
    }),
  );
  expect(res.status).toBe(413);
  expect(await res.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', message: expect.stringMatching(/exceeds/) });
});

it('unknown query parameters neither change the answer nor add cache entries', async () => {
  const cat = await createCategory();
  await createTemplate({ categoryId: cat.id, slug: 'cache-key-one' });
  // On PostgreSQL the write's cache invalidation also arrives through LISTEN/NOTIFY: let it land first.
  await new Promise((r) => setTimeout(r, 1000));
  const first = await api('/catalog/templates?limit=5');
  expect(first.status).toBe(200);
  const size = responseCache().size;
  for (let i = 0; i < 50; i++) {
    const res = await api(`/catalog/templates?limit=5&junk${i}=${i}&__proto__=x`);
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBe(first.headers.get('etag'));
  }
  expect(responseCache().size).toBe(size);
  // A known parameter is part of the key.
  await api('/catalog/templates?limit=6');
  expect(responseCache().size).toBe(size + 1);
});

it('HUB_RESPONSE_CACHE_MB=0 turns the response cache off: every answer is computed, none stored', async () => {
  const before = responseCache().size;
  process.env.HUB_RESPONSE_CACHE_MB = '0';
  reloadConfig();
  try {
    for (const limit of [7, 8, 7]) {
      const res = await api(`/catalog/templates?limit=${limit}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('etag')).toBeTruthy();
    }
    expect(responseCache().size).toBe(before);
  } finally {
    delete process.env.HUB_RESPONSE_CACHE_MB;
    reloadConfig();
  }
  await api('/catalog/templates?limit=7');
  expect(responseCache().size).toBe(before + 1);
});

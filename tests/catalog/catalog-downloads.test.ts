/** download_count: counted on single-template reads with an instance key only, exactly under concurrency. */
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { templates } from '../../server/db/schema';
import { flushDownloads } from '../../server/domain/catalog/downloads';
import { api, createCategory, createKey, createOrg, createTemplate, createUser } from '../helpers';

async function storedCount(id: string) {
  const [row] = await (
    await getDb()
  )
    .select({ n: templates.downloadCount })
    .from(templates)
    .where(eq(templates.id, id));
  return Number(row!.n);
}

it('counts instance-key reads and nothing else', async () => {
  const org = await createOrg();
  const key = await createKey(org.id);
  const cat = await createCategory();
  const tpl = await createTemplate({ categoryId: cat.id, slug: 'dl-one' });
  const admin = await createUser({ role: 'admin' });

  await api('/catalog/templates/dl-one');
  await api('/catalog/templates/dl-one', { token: admin.token });
  await api('/catalog/templates?search=dl-one', { token: key.secret });
  await flushDownloads();
  expect(await storedCount(tpl.id)).toBe(0);

  const res = await api('/catalog/templates/dl-one', { token: key.secret });
  expect(res.status).toBe(200);
  // A conditional read that is answered 304 is still a read of the template.
  const again = await api('/catalog/templates/dl-one', {
    token: key.secret,
    headers: { 'if-none-match': res.headers.get('etag')! },
  });
  expect(again.status).toBe(304);
  await flushDownloads();
  expect(await storedCount(tpl.id)).toBe(2);
});

it('batched counts reach the database by themselves within a second', async () => {
  const org = await createOrg();
  const key = await createKey(org.id);
  const cat = await createCategory();
  const tpl = await createTemplate({ categoryId: cat.id, slug: 'dl-timer' });
  await api('/catalog/templates/dl-timer', { token: key.secret });
  const deadline = Date.now() + 3000;
  while ((await storedCount(tpl.id)) !== 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  expect(await storedCount(tpl.id)).toBe(1);
});

it('1,000 concurrent reads with instance keys add exactly 1,000', async () => {
  const orgs = [await createOrg(), await createOrg()];
  const keys = [await createKey(orgs[0]!.id), await createKey(orgs[1]!.id)];
  const cat = await createCategory();
  const tpl = await createTemplate({ categoryId: cat.id, slug: 'dl-many' });
  const results = await Promise.all(
    Array.from({ length: 1000 }, (_, i) => api('/catalog/templates/dl-many', { token: keys[i % 2]!.secret })),
  );
  expect(results.filter((r) => r.status !== 200)).toEqual([]);
  await flushDownloads();
  expect(await storedCount(tpl.id)).toBe(1000);
});

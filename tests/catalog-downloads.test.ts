/** download_count: counted on single-template reads with an instance key only, exactly under concurrency. */
import { eq } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { getDb } from '../server/db/client';
import { templates } from '../server/db/schema';
import { api, createCategory, createKey, createOrg, createTemplate, createUser } from './helpers';

async function storedCount(id: string) {
  const [row] = await (await getDb()).select({ n: templates.downloadCount }).from(templates).where(eq(templates.id, id));
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
  expect(await storedCount(tpl.id)).toBe(0);

  const res = await api('/catalog/templates/dl-one', { token: key.secret });
  expect(res.status).toBe(200);
  expect(res.body.download_count).toBe(1);
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
  expect(await storedCount(tpl.id)).toBe(1000);
  // Every increment returned a distinct new value: no two reads saw the same count.
  expect(new Set(results.map((r) => r.body.download_count)).size).toBe(1000);
});

/**
 * Tags match whatever their case (issue 15): the tag filter (`tags=GPU` finds templates tagged gpu, Gpu or
 * GPU) and search (a tag equal to the term). Answers show tags as they were written. The read model keeps
 * them lower-cased through every write path: insert, the admin API's update, and a plain SQL update.
 */
import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { templates } from '../../server/db/schema';
import { catalogWrite } from '../../server/domain/catalog/writes';
import { api, createCategory, createTemplate, createUser } from '../helpers';

const slugs = (res: { body: any }) => (res.body.templates as { slug: string }[]).map((t) => t.slug).sort();
let categoryId: string;

beforeAll(async () => {
  categoryId = (await createCategory({ slug: 'tagcase' })).id;
  await createTemplate({ slug: 'tc-lower', name: 'Tc Lower', categoryId, tags: ['gpu', 'llm'] });
  await createTemplate({ slug: 'tc-upper', name: 'Tc Upper', categoryId, tags: ['GPU'] });
  await createTemplate({ slug: 'tc-mixed', name: 'Tc Mixed', categoryId, tags: ['Gpu', 'Vision'] });
  await createTemplate({ slug: 'tc-none', name: 'Tc None', categoryId, tags: ['cpu'] });
});

describe('tags are case-insensitive', () => {
  it('filters by tag whatever the case of the filter or of the stored tag', async () => {
    const all = ['tc-lower', 'tc-mixed', 'tc-upper'];
    for (const tag of ['gpu', 'GPU', 'Gpu', 'gPU']) {
      const res = await api(`/catalog/templates?category=tagcase&tags=${tag}`);
      expect(res.status).toBe(200);
      expect(slugs(res), `tags=${tag}`).toEqual(all);
      expect(res.body.pagination.total).toBe(3);
    }
    expect(slugs(await api('/catalog/templates?category=tagcase&tags=VISION,LLM'))).toEqual(['tc-lower', 'tc-mixed']);
    expect(slugs(await api('/catalog/templates?category=tagcase&tags=gpux'))).toEqual([]);
  });

  it('answers with the tags as written', async () => {
    const res = await api('/catalog/templates?category=tagcase&tags=gpu');
    const byslug = Object.fromEntries(
      (res.body.templates as { slug: string; tags: string[] }[]).map((t) => [t.slug, t.tags]),
    );
    expect(byslug['tc-upper']).toEqual(['GPU']);
    expect(byslug['tc-mixed']).toEqual(['Gpu', 'Vision']);
  });

  it('searches tags whatever the case', async () => {
    expect(slugs(await api('/catalog/templates?category=tagcase&search=GPU'))).toEqual([
      'tc-lower',
      'tc-mixed',
      'tc-upper',
    ]);
    expect(slugs(await api('/catalog/templates?category=tagcase&search=vision'))).toEqual(['tc-mixed']);
  });

  it('keeps folding tags on updates (admin API and plain SQL)', async () => {
    const admin = await createUser({ role: 'admin' });
    const db = await getDb();
    const [none] = await db.select({ id: templates.id }).from(templates).where(eq(templates.slug, 'tc-none'));
    const put = await api('/admin/templates', {
      method: 'PUT',
      token: admin.token,
      body: { id: none!.id, tags: ['CPU', 'GPU'] },
    });
    expect(put.status).toBe(200);
    expect(put.body.template.tags).toEqual(['CPU', 'GPU']);
    expect(slugs(await api('/catalog/templates?category=tagcase&tags=gpu'))).toEqual([
      'tc-lower',
      'tc-mixed',
      'tc-none',
      'tc-upper',
    ]);

    await catalogWrite(({ tx }) =>
      tx
        .update(templates)
        .set({ tags: ['Edge'] })
        .where(eq(templates.slug, 'tc-upper')),
    );
    expect(slugs(await api('/catalog/templates?category=tagcase&tags=EDGE'))).toEqual(['tc-upper']);
    expect(slugs(await api('/catalog/templates?category=tagcase&tags=gpu'))).toEqual([
      'tc-lower',
      'tc-mixed',
      'tc-none',
    ]);
  });
});

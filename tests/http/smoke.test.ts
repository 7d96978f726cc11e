import { describe, expect, it } from 'vitest';
import { api, createCategory, createTemplate } from '../helpers';

describe('harness', () => {
  it('serves the anonymous catalog through the REST adapter', async () => {
    const cat = await createCategory();
    await createTemplate({ categoryId: cat.id, slug: 'smoke-public' });
    const res = await api('/catalog/templates');
    expect(res.status).toBe(200);
    expect(res.body.templates.map((t: { slug: string }) => t.slug)).toContain('smoke-public');
    expect(res.body.pagination).toEqual({ page: 1, limit: 50, total: 1, totalPages: 1 });
  });
});

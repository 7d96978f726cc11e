/** The OpenAPI document describes what the server really serves. */
import { expect, it } from 'vitest';
import { GET } from '../../app/api/v1/openapi.json/route';
import { api } from '../helpers';

async function doc() {
  const res = GET();
  expect(res.status).toBe(200);
  return res.json();
}

it('is OpenAPI 3.1 with the catalog paths and their parameters', async () => {
  const d = await doc();
  expect(d.openapi).toMatch(/^3\.1/);
  for (const p of [
    '/catalog/templates',
    '/catalog/templates/{slug}',
    '/catalog/templates/updates',
    '/catalog/categories',
  ]) {
    expect(d.paths[p]?.get, p).toBeDefined();
  }
  const params = d.paths['/catalog/templates'].get.parameters.map((p: any) => p.name).sort();
  expect(params).toEqual(['category', 'featured', 'limit', 'page', 'search', 'tags']);
  const updates = d.paths['/catalog/templates/updates'].get;
  expect(updates.parameters).toEqual(
    expect.arrayContaining([expect.objectContaining({ name: 'since', required: true })]),
  );
  expect(Object.keys(updates.responses['200'].content['application/json'].schema.properties).sort()).toEqual([
    'checked_at',
    'has_more',
    'removed',
    'templates',
  ]);
});

it('documents a JSON body for every DELETE that takes input', async () => {
  const d = await doc();
  for (const [path, item] of Object.entries<any>(d.paths)) {
    const del = item.delete;
    if (!del || !(del.parameters ?? []).some((p: any) => p.in === 'query')) continue;
    expect(del.requestBody?.content?.['application/json']?.schema?.type, path).toBe('object');
  }
});

it('every documented GET path without parameters answers with a JSON status other than 404/405/500', async () => {
  const d = await doc();
  for (const [path, item] of Object.entries<any>(d.paths)) {
    if (!item.get || path.includes('{')) continue;
    const res = await api(path);
    expect([404, 405, 500], `${path} → ${res.status}`).not.toContain(res.status);
    expect(res.headers.get('content-type'), path).toContain('application/json');
  }
});

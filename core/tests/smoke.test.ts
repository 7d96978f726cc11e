import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase, startCore, type TestCore } from './helpers';

let t: TestCore;
let db: Awaited<ReturnType<typeof freshDatabase>>;
beforeAll(async () => {
  db = await freshDatabase();
  t = await startCore({ temporaryAdmin: { username: 'setup', password: 'temporary-password' } }, db);
});
afterAll(async () => {
  await t?.stop();
  await db?.drop();
});

it('serves health, the OpenAPI document and temporary admin login', async () => {
  expect((await t.call('GET', '/healthz')).status).toBe(200);
  expect((await t.call('GET', '/readyz')).body.status).toBe('ready');
  const doc = await t.call('GET', '/api/v1/openapi.json');
  expect(doc.status).toBe(200);
  expect(Object.keys(doc.body.paths)).toContain('/api/v1/tokens/{id}/audit');
  const login = await t.call('POST', '/api/v1/auth/login', {
    body: { username: 'setup', password: 'temporary-password' },
  });
  expect(login.status).toBe(200);
  const me = await t.call('GET', '/api/v1/auth/me', { token: login.body.access_token });
  expect(me.body).toEqual({
    kind: 'temporary_admin',
    role: 'admin',
    temporary: true,
    user: { id: null, email: 'setup', name: 'setup' },
    token_id: null,
  });
  expect(me.headers.get('x-core-warning')).toMatch(/SVC_TEMP_ADMIN/);
});

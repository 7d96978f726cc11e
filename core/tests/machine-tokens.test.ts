/**
 * Machine tokens: exactly one audit record per request (refused ones included), expiry bounds,
 * shown once, re-issue and revoke, legacy roles refused.
 */
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { machineTokenAudit, machineTokens } from '../src/db/schema';
import { coreWithAdmin, TEMP_ADMIN, type TestCore } from './helpers';

let t: TestCore;
let admin: string;
let stop: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ t, admin, stop } = await coreWithAdmin());
});
afterAll(() => stop?.());

const create = (body: unknown) => t.call('POST', '/api/v1/tokens', { token: admin, body });
const audit = async (id: string) =>
  (await t.call('GET', `/api/v1/tokens/${id}/audit?limit=100`, { token: admin })).body.records as any[];

describe('audit', () => {
  it('records exactly one entry per request with method, path (no query) and status, refused ones included', async () => {
    const { body: tok } = await create({ name: 'reader', role: 'readonly' });
    const requests: [string, string, number, unknown?][] = [
      ['GET', '/api/v1/secrets?x=1', 200],
      ['GET', '/api/v1/auth/me', 200],
      ['PUT', '/api/v1/secrets/forbidden', 403, { value: 'nope' }],
      ['POST', '/api/v1/tokens', 403, { name: 'x', role: 'admin' }],
      ['GET', '/api/v1/does-not-exist', 404],
      ['GET', '/api/v1/users?limit=1000', 400],
      ['DELETE', '/api/v1/users/00000000-0000-0000-0000-000000000000', 403],
    ];
    for (const [method, path, status, body] of requests) {
      const res = await t.call(method, path, { token: tok.token, body });
      expect(res.status, `${method} ${path}`).toBe(status);
    }
    const records = await audit(tok.id);
    expect(records).toHaveLength(requests.length);
    // Newest first.
    const expectedRecords = requests
      .map(([method, path, status]) => ({ method, path: path.split('?')[0], status }))
      .reverse();
    expect(records.map(({ method, path, status }) => ({ method, path, status }))).toEqual(expectedRecords);
    for (const r of records) {
      expect(r).toEqual({
        id: expect.any(String),
        token_id: tok.id,
        method: expect.any(String),
        path: expect.any(String),
        status: expect.any(Number),
        at: expect.any(String),
      });
    }
    const times = records.map((r) => Date.parse(r.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it("records a revoked token's 401 against it; an old secret after re-issue is unknown and not recorded", async () => {
    const { body: revoked } = await create({ name: 'to-revoke', role: 'admin' });
    await t.call('GET', '/api/v1/auth/me', { token: revoked.token });
    expect((await t.call('DELETE', `/api/v1/tokens/${revoked.id}`, { token: admin })).status).toBe(204);
    const refused = await t.call('GET', '/api/v1/auth/me', { token: revoked.token });
    expect(refused.status).toBe(401);
    expect((await audit(revoked.id)).map((r) => r.status)).toEqual([401, 200]);

    const { body: old } = await create({ name: 'to-reissue', role: 'readonly' });
    const { body: fresh } = await t.call('POST', `/api/v1/tokens/${old.id}/reissue`, { token: admin });
    expect(fresh.id).toBe(old.id);
    expect(fresh.role).toBe('readonly');
    expect(fresh.token).not.toBe(old.token);
    expect((await t.call('GET', '/api/v1/auth/me', { token: old.token })).status).toBe(401);
    expect((await t.call('GET', '/api/v1/auth/me', { token: fresh.token })).status).toBe(200);
    expect((await audit(old.id)).map((r) => r.status)).toEqual([200]);
  });

  it("records an expired token's 401 against it", async () => {
    const { body: tok } = await create({ name: 'short', role: 'readonly', expires_in_days: 1 });
    await t.core.db
      .update(machineTokens)
      .set({ expiresAt: new Date(Date.now() - 1) })
      .where(eq(machineTokens.id, tok.id));
    expect((await t.call('GET', '/api/v1/secrets', { token: tok.token })).status).toBe(401);
    const list = await t.call('GET', '/api/v1/tokens', { token: admin });
    expect(list.body.tokens.find((x: any) => x.id === tok.id).status).toBe('expired');
    expect((await audit(tok.id)).map((r) => [r.method, r.path, r.status])).toEqual([['GET', '/api/v1/secrets', 401]]);
  });

  it('keeps every record of a burst of parallel requests', async () => {
    const { body: tok } = await create({ name: 'burst', role: 'readonly' });
    const statuses = await Promise.all(
      Array.from({ length: 60 }, () => t.call('GET', '/api/v1/settings', { token: tok.token }).then((r) => r.status)),
    );
    expect(statuses.every((s) => s === 200)).toBe(true);
    await t.core.audit.flush();
    const rows = await t.core.db.select().from(machineTokenAudit).where(eq(machineTokenAudit.tokenId, tok.id));
    expect(rows).toHaveLength(60);
  });

  it('never stores a request body, query or secret in the audit', async () => {
    const { body: tok } = await create({ name: 'writer', role: 'admin' });
    await t.call('PUT', '/api/v1/secrets/db-password?hint=hunter2-query', {
      token: tok.token,
      body: { value: 'hunter2-value' },
    });
    await t.core.audit.flush();
    const rows = await t.core.db.select().from(machineTokenAudit).where(eq(machineTokenAudit.tokenId, tok.id));
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toMatch(/hunter2/);
  });
});

describe('creation rules', () => {
  it('accepts 1..365 days or null/absent, and refuses anything else naming the field', async () => {
    for (const ok of [1, 365, null, undefined]) {
      const res = await create({ name: 'ok', role: 'readonly', ...(ok === undefined ? {} : { expires_in_days: ok }) });
      expect(res.status, String(ok)).toBe(201);
      if (typeof ok === 'number') {
        const days = (Date.parse(res.body.expires_at) - Date.now()) / 86_400_000;
        expect(days).toBeGreaterThan(ok - 0.01);
        expect(days).toBeLessThanOrEqual(ok);
      } else expect(res.body.expires_at).toBeNull();
    }
    for (const bad of [0, 366, -1, 1.5, '30', true]) {
      const res = await create({ name: 'bad', role: 'readonly', expires_in_days: bad });
      expect(res.status, String(bad)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.message).toMatch(/expires_in_days/);
    }
  });

  it('refuses legacy roles with the valid roles named, and operator as needing admin', async () => {
    const op = await create({ name: 'x', role: 'operator' });
    expect(op.status).toBe(400);
    expect(op.body.message).toMatch(/role/);
    expect(op.body.message).toMatch(/needs admin/);
    expect(op.body.message).toMatch(/admin and readonly/);
    const viewer = await create({ name: 'x', role: 'viewer' });
    expect(viewer.status).toBe(400);
    expect(viewer.body.message).toMatch(/admin and readonly/);
    const userOp = await t.call('POST', '/api/v1/users', {
      token: admin,
      body: { email: 'op@example.test', password: 'long enough password', role: 'operator' },
    });
    expect(userOp.status).toBe(400);
    expect(userOp.body.message).toMatch(/needs admin/);
    const roles = await t.core.db.select({ role: machineTokens.role }).from(machineTokens);
    expect(roles.every((r) => r.role === 'admin' || r.role === 'readonly')).toBe(true);
  });

  it('refuses unknown body fields by name, and malformed JSON, without writing anything', async () => {
    const before = (await t.call('GET', '/api/v1/tokens?limit=100', { token: admin })).body.pagination.total;
    const res = await create({ name: 'x', role: 'readonly', scopes: ['all'], owner: 'me' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/unknown fields: scopes, owner/);
    const bad = await t.call('POST', '/api/v1/tokens', { token: admin, body: '{"name": ' });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('BAD_REQUEST');
    const missing = await create({ role: 'readonly' });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/^Invalid input: name:/);
    expect((await t.call('GET', '/api/v1/tokens?limit=100', { token: admin })).body.pagination.total).toBe(before);
  });

  it('shows the token once: never in a listing, and only a hash is stored', async () => {
    const { body: tok } = await create({ name: 'once', role: 'readonly' });
    expect(tok.token).toMatch(/^svm_[0-9A-Za-z]{38}$/);
    expect(tok.prefix).toBe(tok.token.slice(0, 12));
    const list = await t.call('GET', '/api/v1/tokens?limit=100', { token: admin });
    expect(JSON.stringify(list.body)).not.toContain(tok.token);
    expect(list.body.tokens.find((x: any) => x.id === tok.id)).toEqual({
      id: tok.id,
      name: 'once',
      role: 'readonly',
      prefix: tok.prefix,
      status: 'active',
      created_at: expect.any(String),
      created_by: TEMP_ADMIN.username,
      expires_at: null,
      last_used_at: null,
    });
    const rows = await t.core.db.select().from(machineTokens).where(eq(machineTokens.id, tok.id));
    expect(JSON.stringify(rows)).not.toContain(tok.token);
    expect((await t.call('GET', `/api/v1/tokens/${tok.id}/audit`, { token: admin })).status).toBe(200);
  });

  it('rejects a token with a broken checksum without knowing it, and a revoked token cannot be re-issued', async () => {
    const { body: tok } = await create({ name: 'sum', role: 'readonly' });
    const last = tok.token.at(-1) === 'A' ? 'B' : 'A';
    const broken = tok.token.slice(0, -1) + last;
    const res = await t.call('GET', '/api/v1/auth/me', { token: broken });
    expect(res.status).toBe(401);
    await t.call('DELETE', `/api/v1/tokens/${tok.id}`, { token: admin });
    expect((await t.call('POST', `/api/v1/tokens/${tok.id}/reissue`, { token: admin })).status).toBe(409);
    expect((await t.call('POST', `/api/v1/tokens/not-a-uuid/reissue`, { token: admin })).status).toBe(404);
  });

  it('lists with pagination', async () => {
    const page = await t.call('GET', '/api/v1/tokens?page=2&limit=3', { token: admin });
    expect(page.status).toBe(200);
    expect(page.body.tokens).toHaveLength(3);
    expect(page.body.pagination).toMatchObject({
      page: 2,
      limit: 3,
      totalPages: Math.ceil(page.body.pagination.total / 3),
    });
    expect((await t.call('GET', '/api/v1/tokens?limit=101', { token: admin })).status).toBe(400);
    expect((await t.call('GET', '/api/v1/tokens?page=0', { token: admin })).status).toBe(400);
  });
});

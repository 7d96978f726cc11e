/**
 * Personal access token management through the real REST adapter (/api/v1/account/tokens), and the
 * rule that REST refuses personal access tokens everywhere.
 */
import { and, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../../server/api/openapi';
import { GET as trpcRoute } from '../../app/api/trpc/[trpc]/route';
import { getDb } from '../../server/db/client';
import { auditLog, personalAccessTokens } from '../../server/db/schema';
import { hashSecret, parseSecret } from '@shared/tokens';
import { api, createKey, createOrg, createUser } from '../helpers';

type User = Awaited<ReturnType<typeof createUser>>;
let admin: User, member: User, member2: User, outsider: User, loner: User;
let org: Awaited<ReturnType<typeof createOrg>>, otherOrg: Awaited<ReturnType<typeof createOrg>>;
let key: Awaited<ReturnType<typeof createKey>>, otherKey: Awaited<ReturnType<typeof createKey>>;

beforeAll(async () => {
  admin = await createUser({ name: 'Admin' });
  member = await createUser({ name: 'Member' });
  member2 = await createUser({ name: 'Member Two' });
  outsider = await createUser({ name: 'Outsider' });
  loner = await createUser({ name: 'No Org' });
  org = await createOrg({ admin, members: [member, member2] });
  otherOrg = await createOrg({ admin: outsider });
  key = await createKey(org.id, 'core-prod');
  otherKey = await createKey(otherOrg.id, 'their core');
});

const mint = (token: string, body: unknown) => api('/account/tokens', { method: 'POST', token, body });
const tokenCount = async () => (await (await getDb()).select().from(personalAccessTokens)).length;

describe('POST /account/tokens (mint)', () => {
  it('mints for any member: shown once, stored as a SHA-256 hash with a display prefix, audited', async () => {
    const res = await mint(member.token, { name: 'laptop', instance_id: key.id, expires_in_days: 30 });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body.token).sort()).toEqual(['expires_at', 'id', 'instance_id', 'name', 'token']);
    const t = res.body.token;
    expect(t).toMatchObject({ name: 'laptop', instance_id: key.id });
    expect(parseSecret(t.token)).toBe('svp_');
    const days = (new Date(t.expires_at).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    const db = await getDb();
    const [row] = await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, t.id));
    expect(row).toMatchObject({
      tokenHash: hashSecret(t.token),
      userId: member.id,
      orgId: org.id,
      instanceKeyId: key.id,
    });
    expect(t.token.startsWith(row!.tokenPrefix)).toBe(true);
    expect(JSON.stringify(row)).not.toContain(t.token);

    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, t.id), eq(auditLog.action, 'personal_access_token.create')));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorType: 'user', actorId: member.id, orgId: org.id });
    expect(JSON.stringify(audit[0])).not.toContain(t.token);

    // Never shown again.
    const list = await api('/account/tokens', { token: member.token });
    expect(JSON.stringify(list.body)).not.toContain(t.token);
    expect(JSON.stringify(list.body)).not.toContain(row!.tokenHash);
  });

  it('expiry is optional', async () => {
    const res = await mint(member.token, { name: 'forever', instance_id: key.id });
    expect(res.status).toBe(200);
    expect(res.body.token.expires_at).toBeNull();
  });

  it('rejects bad input with 400 naming the field, and writes nothing', async () => {
    const before = await tokenCount();
    const cases: Array<[unknown, string]> = [
      [{ name: 'x', instance_id: key.id, expires_in_days: 366 }, 'expires_in_days'],
      [{ name: 'x', instance_id: key.id, expires_in_days: 1000 }, 'expires_in_days'],
      [{ name: 'x', instance_id: key.id, expires_in_days: 0 }, 'expires_in_days'],
      [{ name: 'x', instance_id: key.id, expires_in_days: 1.5 }, 'expires_in_days'],
      [{ name: 'x', instance_id: key.id, expires_in_days: '30' }, 'expires_in_days'],
      [{ instance_id: key.id }, 'name'],
      [{ name: '   ', instance_id: key.id }, 'name'],
      [{ name: 'x'.repeat(101), instance_id: key.id }, 'name'],
      [{ name: 'x' }, 'instance_id'],
      [{ name: 'x', instance_id: 'not-a-uuid' }, 'instance_id'],
    ];
    for (const [body, field] of cases) {
      const res = await mint(member.token, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.body.message).toContain(field);
    }
    expect(
      (
        await api('/account/tokens', {
          method: 'POST',
          token: member.token,
          rawBody: '{nope',
          headers: { 'content-type': 'application/json' },
        })
      ).status,
    ).toBe(400);
    expect(await tokenCount()).toBe(before);
  });

  it('only for an active instance of the caller’s organization', async () => {
    const before = await tokenCount();
    const foreign = await mint(member.token, { name: 'x', instance_id: otherKey.id });
    expect(foreign.status).toBe(404);
    const revokedKey = await createKey(org.id, 'revoked');
    expect(
      (await api('/account/api-keys', { method: 'DELETE', token: admin.token, body: { id: revokedKey.id } })).status,
    ).toBe(200);
    const revoked = await mint(member.token, { name: 'x', instance_id: revokedKey.id });
    expect(revoked.status).toBe(400);
    expect(revoked.body.message).toMatch(/instance_id.*revoked/);
    expect(await tokenCount()).toBe(before);
  });

  it('needs an organization and a user credential', async () => {
    expect((await mint(loner.token, { name: 'x', instance_id: key.id })).status).toBe(403);
    expect((await api('/account/tokens', { method: 'POST', body: { name: 'x', instance_id: key.id } })).status).toBe(
      401,
    );
    expect((await mint(key.secret, { name: 'x', instance_id: key.id })).status).toBe(403);
  });
});

describe('GET /account/tokens (list)', () => {
  it('members see their own tokens; org admins see every token of the organization; never other organizations’', async () => {
    const mine = (await mint(member2.token, { name: 'm2', instance_id: key.id })).body.token;
    const theirs = (await mint(outsider.token, { name: 'other org', instance_id: otherKey.id })).body.token;

    const m2 = await api('/account/tokens', { token: member2.token });
    expect(m2.status).toBe(200);
    expect(m2.body.tokens.map((t: any) => t.id)).toEqual([mine.id]);
    expect(m2.body.tokens[0]).toMatchObject({
      id: mine.id,
      name: 'm2',
      instance_id: key.id,
      instance_name: 'core-prod',
      minter: { id: member2.id, email: member2.email, name: 'Member Two' },
      expires_at: null,
      last_used_at: null,
      revoked_at: null,
      status: 'active',
    });
    expect(m2.body.tokens[0].token_prefix).toMatch(/^svp_/);
    expect(m2.body.tokens[0]).not.toHaveProperty('token');

    const all = await api('/account/tokens', { token: admin.token });
    const minters = new Set(all.body.tokens.map((t: any) => t.minter.id));
    expect(minters).toEqual(new Set([member.id, member2.id]));
    expect(all.body.tokens.map((t: any) => t.id)).not.toContain(theirs.id);

    const loners = await api('/account/tokens', { token: loner.token });
    expect(loners.status).toBe(200);
    expect(loners.body.tokens).toEqual([]);
  });
});

describe('PUT /account/tokens (rotate)', () => {
  it('the minter gets a new secret under the same id', async () => {
    const t = (await mint(member.token, { name: 'rotate me', instance_id: key.id, expires_in_days: 10 })).body.token;
    const res = await api('/account/tokens', { method: 'PUT', token: member.token, body: { id: t.id } });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatchObject({
      id: t.id,
      name: 'rotate me',
      instance_id: key.id,
      expires_at: t.expires_at,
    });
    expect(res.body.token.token).not.toBe(t.token);
    const db = await getDb();
    const [row] = await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, t.id));
    expect(row!.tokenHash).toBe(hashSecret(res.body.token.token));
    expect(row!.rotatedAt).toBeInstanceOf(Date);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.targetId, t.id), eq(auditLog.action, 'personal_access_token.rotate'))),
    ).toHaveLength(1);
  });

  it('anyone else is refused: 403 in the organization (even its admin), 404 from another organization', async () => {
    const t = (await mint(member.token, { name: 'not yours', instance_id: key.id })).body.token;
    const db = await getDb();
    const [before] = await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, t.id));
    expect((await api('/account/tokens', { method: 'PUT', token: member2.token, body: { id: t.id } })).status).toBe(
      403,
    );
    expect((await api('/account/tokens', { method: 'PUT', token: admin.token, body: { id: t.id } })).status).toBe(403);
    expect((await api('/account/tokens', { method: 'PUT', token: outsider.token, body: { id: t.id } })).status).toBe(
      404,
    );
    expect((await api('/account/tokens', { method: 'PUT', token: loner.token, body: { id: t.id } })).status).toBe(404);
    expect(
      (await api('/account/tokens', { method: 'PUT', token: member.token, body: { id: crypto.randomUUID() } })).status,
    ).toBe(404);
    expect((await api('/account/tokens', { method: 'PUT', token: member.token, body: { id: 'nope' } })).status).toBe(
      400,
    );
    const [after] = await db.select().from(personalAccessTokens).where(eq(personalAccessTokens.id, t.id));
    expect(after!.tokenHash).toBe(before!.tokenHash);
  });

  it('a revoked token cannot be rotated back to life (409)', async () => {
    const t = (await mint(member.token, { name: 'dead', instance_id: key.id })).body.token;
    expect((await api('/account/tokens', { method: 'DELETE', token: member.token, body: { id: t.id } })).status).toBe(
      200,
    );
    expect((await api('/account/tokens', { method: 'PUT', token: member.token, body: { id: t.id } })).status).toBe(409);
  });
});

describe('DELETE /account/tokens (revoke)', () => {
  it('an organization admin may revoke a member’s token; the list shows it revoked; audited', async () => {
    const t = (await mint(member.token, { name: 'admin revokes', instance_id: key.id })).body.token;
    const res = await api('/account/tokens', { method: 'DELETE', token: admin.token, body: { id: t.id } });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatchObject({ id: t.id, status: 'revoked' });
    const listed = (await api('/account/tokens', { token: member.token })).body.tokens.find((x: any) => x.id === t.id);
    expect(listed).toMatchObject({ status: 'revoked', revoked_at: res.body.token.revoked_at });
    const db = await getDb();
    const audit = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, t.id), eq(auditLog.action, 'personal_access_token.revoke')));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorId: admin.id, orgId: org.id });
    // Again: harmless, same time, no second audit record. ?id= works too.
    const again = await api(`/account/tokens?id=${t.id}`, { method: 'DELETE', token: member.token });
    expect(again.status).toBe(200);
    expect(again.body.token.revoked_at).toBe(res.body.token.revoked_at);
    expect(
      await db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.targetId, t.id), eq(auditLog.action, 'personal_access_token.revoke'))),
    ).toHaveLength(1);
  });

  it('other members may not (403); other organizations get 404', async () => {
    const t = (await mint(member.token, { name: 'keep', instance_id: key.id })).body.token;
    expect((await api('/account/tokens', { method: 'DELETE', token: member2.token, body: { id: t.id } })).status).toBe(
      403,
    );
    expect((await api('/account/tokens', { method: 'DELETE', token: outsider.token, body: { id: t.id } })).status).toBe(
      404,
    );
    expect((await api('/account/tokens', { method: 'DELETE', token: member.token, body: {} })).status).toBe(400);
    const listed = (await api('/account/tokens', { token: member.token })).body.tokens.find((x: any) => x.id === t.id);
    expect(listed.status).toBe('active');
  });
});

describe('personal access tokens are refused by REST', () => {
  it('every /api/v1 endpoint answers 401 to a valid PAT', async () => {
    const pat = (await mint(member.token, { name: 'rest probe', instance_id: key.id })).body.token.token;
    const doc = openApiDocument() as unknown as { paths: Record<string, Record<string, unknown>> };
    const probed: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const method of Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
        const concrete = path.replace(/\{[^}]+\}/g, 'probe');
        const withBody = method === 'post' || method === 'put' || method === 'patch';
        const res = await api(concrete, { method: method.toUpperCase(), token: pat, body: withBody ? {} : undefined });
        expect([method.toUpperCase(), path, res.status]).toEqual([method.toUpperCase(), path, 401]);
        expect(res.body.message).toMatch(/only at the \/mcp endpoint/);
        probed.push(`${method.toUpperCase()} ${path}`);
      }
    }
    // The sample covers at least the catalog and the token endpoints themselves.
    expect(probed).toEqual(
      expect.arrayContaining([
        'GET /catalog/templates',
        'GET /account/tokens',
        'POST /account/tokens',
        'PUT /account/tokens',
        'DELETE /account/tokens',
      ]),
    );
  });

  it('and by the dashboard’s tRPC endpoint', async () => {
    const pat = (await mint(member.token, { name: 'trpc probe', instance_id: key.id })).body.token.token;
    const req = new Request('http://hub.test/api/trpc/tokens.list', { headers: { authorization: `Bearer ${pat}` } });
    const res = await trpcRoute(req);
    expect(res.status).toBe(401);
    const body = (await res.json()) as { error: { message: string; data: { code: string; request_id: string } } };
    expect(body.error.data).toMatchObject({ code: 'UNAUTHORIZED', request_id: res.headers.get('x-request-id') });
  });
});

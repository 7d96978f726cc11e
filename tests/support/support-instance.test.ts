import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../../server/api/openapi';
import { getDb } from '../../server/db/client';
import { auditLog, instanceReports } from '../../server/db/schema';
import { api } from '../helpers';
import { EXPECTED_REFUSALS, refusals, supportWorld } from '../support-helpers';

describe('GET/PUT /instance-info', () => {
  it('tells the instance its key, organization and tier; nothing reported yet', async () => {
    const { org, key } = await supportWorld({ slug: 'acme-info', keyName: 'core-main' });
    const res = await api('/instance-info', { token: key.secret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      instance: {
        id: key.id,
        name: 'core-main',
        key_prefix: key.keyPrefix,
        status: 'active',
        last_used_at: expect.toSatisfy((v: unknown) => v === null || typeof v === 'string'),
        organization: { id: org.id, name: org.name, slug: 'acme-info', tier: 'free', status: 'active' },
        reported: null,
        dns: null,
      },
    });
    expect(key.secret.startsWith(res.body.instance.key_prefix)).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain(key.secret);
  });

  it('records a report, keeps absent fields, clears null ones, and audits only real changes', async () => {
    const { key } = await supportWorld();
    const first = await api('/instance-info', {
      method: 'PUT',
      token: key.secret,
      body: {
        version: '2.4.1',
        base_url: 'https://core.example.com',
        mcp_url: 'https://core.example.com/mcp',
        hostname: 'core.example.com',
      },
    });
    expect(first.status).toBe(200);
    expect(first.body.instance.reported).toMatchObject({
      version: '2.4.1',
      base_url: 'https://core.example.com',
      mcp_url: 'https://core.example.com/mcp',
      hostname: 'core.example.com',
    });
    expect(Date.parse(first.body.instance.reported.reported_at)).not.toBeNaN();

    const second = await api('/instance-info', {
      method: 'PUT',
      token: key.secret,
      body: { version: '2.5.0', hostname: null },
    });
    expect(second.status).toBe(200);
    expect(second.body.instance.reported).toMatchObject({
      version: '2.5.0',
      base_url: 'https://core.example.com',
      mcp_url: 'https://core.example.com/mcp',
      hostname: null,
    });

    // GET returns the same object.
    const got = await api('/instance-info', { token: key.secret });
    expect(got.body.instance.reported).toEqual(second.body.instance.reported);

    // Same values again: no audit record.
    await api('/instance-info', { method: 'PUT', token: key.secret, body: { version: '2.5.0' } });
    const db = await getDb();
    const audits = await db.select().from(auditLog).where(eq(auditLog.targetId, key.id));
    expect(audits.map((a) => a.action)).toEqual(['instance.report', 'instance.report']);
    expect(audits.every((a) => a.actorType === 'instance' && a.actorId === key.id)).toBe(true);

    // The MCP proxy reads the column directly.
    const [row] = await db.select().from(instanceReports).where(eq(instanceReports.instanceKeyId, key.id));
    expect(row!.mcpUrl).toBe('https://core.example.com/mcp');
  });

  it('validates URLs: http(s) only, at most 2,048 characters, no credentials; nothing is stored on a 400', async () => {
    const { key } = await supportWorld();
    const longest = `https://core.example.com/${'a'.repeat(2048 - 'https://core.example.com/'.length)}`;
    expect(longest).toHaveLength(2048);
    const ok = await api('/instance-info', { method: 'PUT', token: key.secret, body: { base_url: longest } });
    expect(ok.status).toBe(200);

    const cases: [unknown, string][] = [
      [{ mcp_url: 'ftp://core.example.com/mcp' }, 'mcp_url'],
      [{ mcp_url: 'javascript:alert(1)' }, 'mcp_url'],
      [{ base_url: `${longest}b` }, 'base_url'],
      [{ base_url: 'not a url' }, 'base_url'],
      [{ base_url: 'https://user:pw@core.example.com' }, 'base_url'],
      [{ mcp_url: 42 }, 'mcp_url'],
      [{ hostname: 'bad host name' }, 'hostname'],
      [{ version: 'x'.repeat(101) }, 'version'],
      [{ version: 'ok', mcp_url: 'file:///etc/passwd' }, 'mcp_url'],
    ];
    for (const [body, field] of cases) {
      const res = await api('/instance-info', { method: 'PUT', token: key.secret, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.message).toContain(field);
    }
    const after = await api('/instance-info', { token: key.secret });
    expect(after.body.instance.reported).toMatchObject({ base_url: longest, mcp_url: null, version: null });
  });

  it('refuses everything but an active instance key', async () => {
    expect(await refusals((token) => api('/instance-info', { token }))).toEqual(EXPECTED_REFUSALS);
    expect(await refusals((token) => api('/instance-info', { method: 'PUT', token, body: { version: '1' } }))).toEqual(
      EXPECTED_REFUSALS,
    );
  });

  it('is in the OpenAPI document with every support path', () => {
    const paths = (openApiDocument() as unknown as { paths: Record<string, Record<string, unknown>> }).paths;
    const methods = (p: string) => Object.keys(paths[p] ?? {}).sort();
    expect(methods('/instance-info')).toEqual(['get', 'put']);
    expect(methods('/dns')).toEqual(['delete', 'get', 'put']);
    expect(methods('/support/tickets')).toEqual(['get', 'post']);
    expect(methods('/support/tickets/{id}')).toEqual(['get']);
    expect(methods('/support/tickets/{id}/messages')).toEqual(['post']);
    expect(methods('/addon-audit-events')).toEqual(['post']);
    // Their security (bearer) against what the Hub answers without a credential: tests/repo/openapi-lint.test.ts.
  });
});

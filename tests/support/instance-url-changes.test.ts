/**
 * What an instance key may do to where the Hub sends its MCP calls (issue 34):
 *   - a plain http:// mcp_url is refused unless its host is loopback, or the operator allowed it
 *     (HUB_ALLOW_INSECURE_MCP_URL=true, warned about once at start); the proxy does not forward to one stored before;
 *   - a change of a registered mcp_url or base_url is audited (instance, old and new URL, the key secret that made
 *     it) and stays on the instance's health row until an organization admin acknowledges it.
 */
import { and, eq } from 'drizzle-orm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { getDb } from '../../server/db/client';
import { auditLog, instanceReports } from '../../server/db/schema';
import { api, createOrg, createUser } from '../helpers';
import { mintToken, rawInitialize, startHub as startInProcessHub } from '../mcp-harness';
import { supportWorld } from '../support-helpers';
import { hubStore, startHub } from '../loop/processes';
import { reloadConfig } from '../../server/config';

const saved = process.env.HUB_ALLOW_INSECURE_MCP_URL;
afterEach(() => {
  if (saved === undefined) delete process.env.HUB_ALLOW_INSECURE_MCP_URL;
  else process.env.HUB_ALLOW_INSECURE_MCP_URL = saved;
});

const report = (secret: string, body: Record<string, unknown>) =>
  api('/instance-info', { method: 'PUT', token: secret, body });

async function storedMcpUrl(keyId: string) {
  const db = await getDb();
  const [row] = await db.select().from(instanceReports).where(eq(instanceReports.instanceKeyId, keyId));
  return row?.mcpUrl ?? null;
}

describe('a plain-http mcp_url', () => {
  it('is refused for a host other than loopback with a 400 naming the problem and what to do; nothing is stored', async () => {
    const { key } = await supportWorld();
    expect((await report(key.secret, { mcp_url: 'https://core.example.com/mcp' })).status).toBe(200);
    for (const url of ['http://core.example.com/mcp', 'http://10.0.0.5:8080/mcp', 'HTTP://Core.Example.com/mcp']) {
      const res = await report(key.secret, { mcp_url: url, version: '9' });
      expect(res.status, url).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
      expect(res.body.message).toMatch(/^mcp_url: plain http:\/\/ is accepted only for a loopback host/);
      expect(res.body.message).toMatch(/https:\/\/.*HUB_ALLOW_INSECURE_MCP_URL=true/);
      expect(res.body.request_id).toEqual(expect.any(String));
    }
    expect(await storedMcpUrl(key.id)).toBe('https://core.example.com/mcp');
  });

  it('is accepted on loopback (127.0.0.0/8, ::1, localhost), and anywhere with HUB_ALLOW_INSECURE_MCP_URL=true', async () => {
    const { key } = await supportWorld();
    for (const url of [
      'http://127.0.0.1:8080/mcp',
      'http://127.9.8.7/mcp',
      'http://localhost:3000/mcp',
      'http://[::1]/mcp',
    ])
      expect((await report(key.secret, { mcp_url: url })).status, url).toBe(200);
    process.env.HUB_ALLOW_INSECURE_MCP_URL = 'true';
    reloadConfig();
    expect((await report(key.secret, { mcp_url: 'http://core.lan/mcp' })).status).toBe(200);
    expect(await storedMcpUrl(key.id)).toBe('http://core.lan/mcp');
  });

  it('stored before the rule, is not forwarded to: the proxy answers 502 saying why', async () => {
    const { admin, key } = await supportWorld();
    const db = await getDb();
    await db.insert(instanceReports).values({ instanceKeyId: key.id, mcpUrl: 'http://core.example.com/mcp' });
    const pat = await mintToken(admin.token, key.id);
    const hub = await startInProcessHub();
    try {
      const res = await rawInitialize(hub.url, `Bearer ${pat.token}`);
      expect(res.status).toBe(502);
      expect(res.body.error.message).toMatch(/plain http:\/\/ to a host other than loopback.*not send calls in clear/);
    } finally {
      await hub.close();
    }
  });
});

describe('HUB_ALLOW_INSECURE_MCP_URL=true on a running Hub', () => {
  const store = hubStore();
  afterAll(async () => (await store).drop());

  it('logs one warning at start', async () => {
    const hub = await startHub(await store, { env: { HUB_ALLOW_INSECURE_MCP_URL: 'true' } });
    await hub.stop();
    const warnings = hub.output.filter((l) => l.includes('HUB_ALLOW_INSECURE_MCP_URL=true'));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0]!)).toMatchObject({ level: 40, msg: expect.stringMatching(/in clear/) });
  }, 60_000);
});

describe('a change of a registered mcp_url or base_url', () => {
  async function urlChangeAudits(keyId: string) {
    const db = await getDb();
    return db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, keyId), eq(auditLog.action, 'instance.url_change')));
  }
  const fleetRow = async (token: string, keyId: string) =>
    ((await api('/account/fleet', { token })).body.instances as any[]).find((i) => i.id === keyId);
  const acknowledge = (token: string, body: unknown) =>
    api('/account/fleet/url-changes/acknowledge', { method: 'POST', token, body });

  it('is audited with the instance, the old and new URL and the key that made it, and shown until acknowledged', async () => {
    const { org, admin, member, key } = await supportWorld({ keyName: 'core-prod' });
    await report(key.secret, { base_url: 'https://core.example.com', mcp_url: 'https://core.example.com/mcp' });
    // The first registration is no change of a URL: nothing to acknowledge.
    expect(await urlChangeAudits(key.id)).toEqual([]);
    expect((await fleetRow(admin.token, key.id)).url_changes).toEqual([]);

    // The hijack's first steps: the key re-issued, the MCP URL pointed elsewhere with the new secret.
    const reissued = await api('/account/api-keys', { method: 'PUT', token: admin.token, body: { id: key.id } });
    expect(reissued.status).toBe(200);
    const secret = reissued.body.apiKey.key as string;
    const prefix = reissued.body.apiKey.key_prefix as string;
    expect(prefix).not.toBe(key.keyPrefix);
    expect((await report(secret, { mcp_url: 'https://attacker.example.net/mcp' })).status).toBe(200);

    const [audit] = await urlChangeAudits(key.id);
    expect(audit).toMatchObject({ orgId: org.id, actorType: 'instance', actorId: key.id, targetType: 'instance_key' });
    expect(audit!.details).toEqual({
      instance_name: 'core-prod',
      key_id: key.id,
      key_prefix: prefix,
      changes: { mcp_url: { from: 'https://core.example.com/mcp', to: 'https://attacker.example.net/mcp' } },
    });

    const row = await fleetRow(admin.token, key.id);
    expect(row.url_changes).toEqual([
      {
        at: expect.any(String),
        field: 'mcp_url',
        from: 'https://core.example.com/mcp',
        to: 'https://attacker.example.net/mcp',
        key_prefix: prefix,
      },
    ]);

    // Organization admins only; another organization's admin does not find the instance.
    expect((await acknowledge(member.token, { instance_id: key.id, through: row.url_changes[0].at })).status).toBe(403);
    const stranger = await createUser();
    await createOrg({ admin: stranger });
    const foreign = await acknowledge(stranger.token, { instance_id: key.id, through: row.url_changes[0].at });
    expect(foreign.status).toBe(404);
    const bad = await acknowledge(admin.token, { instance_id: key.id, through: 'yesterday' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/through/);
    expect((await fleetRow(admin.token, key.id)).url_changes).toHaveLength(1);

    // A change after the one the admin saw stays after the acknowledgement.
    await new Promise((r) => setTimeout(r, 5));
    expect((await report(secret, { base_url: 'https://attacker.example.net' })).status).toBe(200);
    const ack = await acknowledge(admin.token, { instance_id: key.id, through: row.url_changes[0].at });
    expect(ack.status).toBe(200);
    expect(ack.body).toEqual({ remaining: 1 });
    const after = await fleetRow(admin.token, key.id);
    expect(after.url_changes.map((c: any) => c.field)).toEqual(['base_url']);
    expect((await acknowledge(admin.token, { instance_id: key.id, through: after.url_changes[0].at })).body).toEqual({
      remaining: 0,
    });
    expect((await fleetRow(admin.token, key.id)).url_changes).toEqual([]);

    const db = await getDb();
    const acks = await db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.targetId, key.id), eq(auditLog.action, 'instance.url_change_acknowledge')));
    expect(acks).toHaveLength(2);
    expect(acks[0]).toMatchObject({ actorType: 'user', actorId: admin.id, orgId: org.id });
    expect(
      (acks.find((a) => JSON.stringify(a.details).includes('attacker.example.net/mcp'))!.details as any).acknowledged,
    ).toEqual([expect.objectContaining({ field: 'mcp_url', key_prefix: prefix })]);
  });

  it('clearing mcp_url and then setting it elsewhere shows both changes, the new URL included', async () => {
    const { admin, key } = await supportWorld();
    await report(key.secret, { mcp_url: 'https://core.example.com/mcp', base_url: 'https://core.example.com' });
    expect((await report(key.secret, { mcp_url: null })).status).toBe(200);
    expect((await report(key.secret, { mcp_url: 'https://attacker.example.net/mcp' })).status).toBe(200);
    const changes = (await urlChangeAudits(key.id)).map((a) => (a.details as any).changes.mcp_url);
    expect(changes).toEqual(
      expect.arrayContaining([
        { from: 'https://core.example.com/mcp', to: null },
        { from: null, to: 'https://attacker.example.net/mcp' },
      ]),
    );
    expect((await fleetRow(admin.token, key.id)).url_changes.map((c: any) => c.to)).toEqual([
      null,
      'https://attacker.example.net/mcp',
    ]);
  });

  it('a refused report changes nothing and audits nothing', async () => {
    const { key } = await supportWorld();
    await report(key.secret, { mcp_url: 'https://core.example.com/mcp' });
    expect((await report(key.secret, { mcp_url: 'http://core.example.com/mcp' })).status).toBe(400);
    expect(await urlChangeAudits(key.id)).toEqual([]);
  });
});

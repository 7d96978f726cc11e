/**
 * The hijack of issue 34, end to end with real processes: an organization admin re-issues the instance key,
 * points the instance's mcp_url at a server of their own, captures the assertion the Hub sends there when a
 * member makes an MCP call, and replays it to Core's /mcp. Core refuses it: the assertion names the URL the
 * Hub sent it to (`destination`), and that is not Core's own MCP endpoint.
 */
import http from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { hubOk, mintPat, organizationWithKey } from './hub-account';
import {
  call,
  coreStore,
  eventually,
  freePort,
  hubStore,
  startCore,
  startHub,
  TEMP_ADMIN,
  type CoreProc,
  type CoreStore,
  type HubProc,
  type HubStore,
} from './processes';

const ADMIN = 'admin@hijack.test'; // the organization's admin (the attacker)
const MEMBER = 'member@hijack.test'; // a member, Core admin (the victim)
const SECRET_VALUE = 'hijack-secret-value-51f0';
let hubDb: HubStore, coreDb: CoreStore, hub: HubProc, core: CoreProc;
let captor: http.Server;
const captured: string[] = [];

function initialize(url: string, token: string) {
  return call(url, '/mcp', {
    method: 'POST',
    token,
    headers: { accept: 'application/json, text/event-stream' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'hijack', version: '1' } },
    },
  });
}

beforeAll(async () => {
  [hubDb, coreDb] = await Promise.all([hubStore(), coreStore()]);
  hub = await startHub(hubDb, { users: [`${ADMIN}:user`, `${MEMBER}:user`] });
  const { key } = await organizationWithKey(hub.url, hub.jwts.get(ADMIN)!, 'hijack', [
    { email: MEMBER, role: 'member', jwt: hub.jwts.get(MEMBER)! },
  ]);
  core = await startCore(coreDb, {
    CORE_HUB_URL: hub.url,
    CORE_HUB_INSTANCE_KEY: key.key,
    CORE_HUB_SYNC_INTERVAL: '3600',
  });
  await eventually('Core registered its MCP URL', async () => {
    const info = await hubOk(hub.url, '/instance-info', key.key);
    return info.instance.reported?.mcp_url === `${core.url}/mcp`;
  });
  const coreAdmin = (await call(core.url, '/api/v1/auth/login', { method: 'POST', body: TEMP_ADMIN })).body
    .access_token;
  const user = await call(core.url, '/api/v1/users', {
    method: 'POST',
    token: coreAdmin,
    body: { email: MEMBER, password: 'a long enough password', role: 'admin' },
  });
  expect(user.status).toBe(201);
  const put = await call(core.url, '/api/v1/secrets/db-password', {
    method: 'PUT',
    token: coreAdmin,
    body: { value: SECRET_VALUE },
  });
  expect(put.status).toBe(200);

  // The attacker's server: records the Authorization header of whatever the Hub sends, answers an empty result.
  captor = http.createServer((req, res) => {
    captured.push(req.headers.authorization ?? '');
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} }));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => captor.listen(port, '127.0.0.1', resolve));
}, 180_000);

afterAll(async () => {
  captor?.closeAllConnections();
  await new Promise((resolve) => (captor ? captor.close(resolve) : resolve(undefined)));
  await core?.stop();
  await hub?.stop();
  await Promise.all([hubDb?.drop(), coreDb?.drop()]);
});

it('an assertion captured by a server the instance key pointed mcp_url at is refused by Core', async () => {
  const admin = hub.jwts.get(ADMIN)!;
  const member = hub.jwts.get(MEMBER)!;
  const { apiKeys } = await hubOk(hub.url, '/account/api-keys', admin);
  const instanceId = apiKeys[0].id as string;
  const pat = await mintPat(hub.url, member, instanceId);
  // The control: the member's call reaches Core through the Hub.
  expect((await initialize(hub.url, pat.token)).status).toBe(200);

  // The admin re-issues the instance key and, with the new secret, points mcp_url at their own server.
  const { apiKey } = await hubOk(hub.url, '/account/api-keys', admin, 'PUT', { id: instanceId });
  const evil = `http://127.0.0.1:${(captor.address() as { port: number }).port}/mcp`;
  await hubOk(hub.url, '/instance-info', apiKey.key, 'PUT', { mcp_url: evil });

  // The member's next call goes to the attacker's server, with the member's assertion.
  expect((await initialize(hub.url, pat.token)).status).toBe(200);
  expect(captured).toHaveLength(1);
  const assertion = /^Bearer (\S+)$/.exec(captured[0]!)![1]!;
  const claims = JSON.parse(Buffer.from(assertion.split('.')[1]!, 'base64url').toString('utf8'));
  expect(claims).toMatchObject({ aud: instanceId, email: MEMBER, destination: evil });

  // Replayed to Core (never used there: not a replay by jti) it is refused, and the secret stays unread.
  const replay = await initialize(core.url, assertion);
  expect(replay.status).toBe(401);
  expect(replay.body.message).toMatch(/issued for another destination/);
  expect(JSON.stringify(replay.body)).not.toContain(SECRET_VALUE);
}, 60_000);

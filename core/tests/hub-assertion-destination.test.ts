/**
 * The Hub's assertion is bound to its destination: Core's /mcp accepts it only when its `destination` claim is
 * Core's own CORE_URL + /mcp (trailing slashes and host case aside). Signed here with a key this test's small
 * Hub stand-in publishes at /.well-known/jwks.json (the full loop with a real Hub: tests/loop/).
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { issueSecret } from '@shared/tokens';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hubConnection } from '../src/db/schema';
import { freshDatabase, localUser, startCore, type TestCore } from './helpers';

const TEMP = { username: 'root', password: 'temporary admin password' };
const CORE_URL = 'https://core.example.test/base';
let hubServer: http.Server;
let hubUrl: string;
let privateKey: CryptoKey;
let kid: string;
let t: TestCore;
let db: Awaited<ReturnType<typeof freshDatabase>>;
const instanceId = randomUUID();
let email: string;

function sign(claims: Record<string, unknown>) {
  return new SignJWT({ email, name: 'Person', token_id: 't', instance_id: instanceId, ...claims })
    .setProtectedHeader({ alg: 'ES256', kid })
    .setIssuer(hubUrl)
    .setAudience(instanceId)
    .setSubject(randomUUID())
    .setJti(randomUUID())
    .setIssuedAt()
    .setExpirationTime('60s')
    .sign(privateKey);
}

const initialize = (token: string) =>
  t.call('POST', '/mcp', {
    token,
    headers: { accept: 'application/json, text/event-stream' },
    body: {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
    },
  });

beforeAll(async () => {
  const pair = await generateKeyPair('ES256');
  privateKey = pair.privateKey;
  const jwk = await exportJWK(pair.publicKey);
  kid = 'destination-test';
  hubServer = http.createServer((req, res) => {
    if (req.url === '/.well-known/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ keys: [{ ...jwk, kid, alg: 'ES256', use: 'sig' }] }));
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"code":"NOT_FOUND","message":"not here"}');
  });
  await new Promise<void>((resolve) => hubServer.listen(0, '127.0.0.1', resolve));
  hubUrl = `http://127.0.0.1:${(hubServer.address() as AddressInfo).port}`;

  db = await freshDatabase();
  t = await startCore(
    { url: CORE_URL, temporaryAdmin: TEMP, hub: { url: hubUrl, instanceKey: issueSecret('svh_').secret } },
    db,
  );
  // The stand-in answers nothing but its JWKS: stop the sync loop, then record the instance id the Hub would give.
  await t.core.catalogSync.stop();
  await t.core.db
    .insert(hubConnection)
    .values({ hubUrl, keyPrefix: 'svh_test', instanceId, connectedAt: new Date() })
    .onConflictDoUpdate({ target: hubConnection.id, set: { hubUrl, sealedKey: null, instanceId } });
  const admin = (await t.call('POST', '/api/v1/auth/login', { body: TEMP })).body.access_token;
  ({ email } = await localUser(t, admin, 'admin'));
});

afterAll(async () => {
  await t?.stop();
  await db?.drop();
  await new Promise((resolve) => (hubServer ? hubServer.close(resolve) : resolve(undefined)));
});

describe('the destination claim of the Hub assertion', () => {
  it('is accepted when it is CORE_URL + /mcp, in any spelling of that URL', async () => {
    for (const destination of [`${CORE_URL}/mcp`, `${CORE_URL}/mcp/`, 'https://CORE.example.test:443/base/mcp'])
      expect((await initialize(await sign({ destination }))).status, destination).toBe(200);
  });

  it('is required: an assertion naming no destination is refused', async () => {
    const res = await initialize(await sign({}));
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/the Hub assertion was refused: it names no destination/);
    expect(res.body.request_id ?? res.headers.get('x-request-id')).toBeTruthy();
  });

  it('refuses an assertion the Hub sent to another URL, naming this instance’s MCP endpoint', async () => {
    for (const destination of [
      'https://attacker.example/mcp',
      `${CORE_URL}/other`,
      'http://core.example.test/base/mcp',
      `${CORE_URL}/mcp?x=1`,
      42,
    ]) {
      const res = await initialize(await sign({ destination }));
      expect(res.status, String(destination)).toBe(401);
      expect(res.body.message).toMatch(/issued for another destination|names no destination/);
    }
    const res = await initialize(await sign({ destination: 'https://attacker.example/mcp' }));
    expect(res.body.message).toContain(`${CORE_URL}/mcp`);
  });
});

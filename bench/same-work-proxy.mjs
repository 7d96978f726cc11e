/**
 * The bench's same-work MCP proxy (issue 36): what the Hub's /mcp must do per call, written once, against the same
 * upstream (bench/mcp-upstream.mjs). The Hub's /mcp is measured against it; calling the upstream directly stays a
 * reported figure. Per call:
 *
 *   1. node:http in;
 *   2. the svp_ token hashed with SHA-256 and looked up in memory (personal access tokens, their owners and their
 *      instances' MCP URLs loaded from the bench database at start);
 *   3. the membership re-checked from memory: the owner is still in the token's organization, in the membership
 *      it was minted in (users.org_id, users.org_joined_at = the token's membership_since), the token neither
 *      revoked nor expired, its instance key active;
 *   4. an ES256 assertion signed with node:crypto, with the Hub's claims (iss, aud = the instance key id, sub, iat,
 *      exp = 60 s, jti, email, name, org_id, token_id, instance_id, destination) and its key (the same kid: the
 *      upstream verifies it against the Hub's JWKS);
 *   5. the call forwarded on a keep-alive connection (the body read, then sent with the headers in one write, as the
 *      Hub does), the client's token not forwarded;
 *   6. the answer streamed back as it arrives;
 *   7. one pino access line to a file (4 KiB blocks, like the Hub's log).
 *
 * Environment: PORT, DATABASE_URL, HUB_URL (the assertion's issuer), SAMEWORK_SIGNING_KEY (the Hub's private key,
 * PKCS#8 PEM), SAMEWORK_KID, SAMEWORK_LOG (the access log file).
 */
import { createHash, createPrivateKey, randomUUID, sign } from 'node:crypto';
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} });
const issuer = process.env.HUB_URL;
const key = createPrivateKey(process.env.SAMEWORK_SIGNING_KEY);
const header = Buffer.from(JSON.stringify({ alg: 'ES256', typ: 'JWT', kid: process.env.SAMEWORK_KID })).toString(
  'base64url',
);

const tokens = new Map();
for (const t of await sql`
  select p.token_hash, p.id, p.user_id, p.org_id, p.instance_key_id, p.membership_since, p.revoked_at, p.expires_at,
         k.status as instance_status, r.mcp_url
    from personal_access_tokens p
    join instance_keys k on k.id = p.instance_key_id and k.org_id = p.org_id
    left join instance_reports r on r.instance_key_id = p.instance_key_id`)
  tokens.set(t.token_hash, t);
const members = new Map();
for (const u of await sql`select id, email, name, org_id, org_joined_at from users`) members.set(u.id, u);
const upstreams = new Map();
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function assertion(t, user, destination) {
  const now = Math.floor(Date.now() / 1000);
  const claims = {
    email: user.email,
    name: user.name,
    org_id: t.org_id,
    token_id: t.id,
    instance_id: t.instance_key_id,
    destination,
    jti: randomUUID(),
    iss: issuer,
    aud: t.instance_key_id,
    sub: t.user_id,
    iat: now,
    exp: now + 60,
  };
  const input = `${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`;
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${signature.toString('base64url')}`;
}

const destination = pino.destination({ dest: process.env.SAMEWORK_LOG, sync: false, minLength: 4096 });
const log = pino({ base: { service: 'same-work-proxy' } }, destination);
const FORWARDED = [
  'content-type',
  'accept',
  'mcp-session-id',
  'mcp-protocol-version',
  'last-event-id',
  'content-length',
];

function refuse(res, status, message) {
  const body = JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message } });
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

/** The token's owner and where to send its calls, or a refusal (status, message). */
function check(authorization) {
  const token = authorization?.startsWith('Bearer ') ? authorization.slice(7) : '';
  const t = token.startsWith('svp_') && tokens.get(createHash('sha256').update(token).digest('hex'));
  if (!t) return [401, 'Unknown personal access token'];
  const user = members.get(t.user_id);
  const member = user && user.org_id === t.org_id && user.org_joined_at?.getTime() === t.membership_since.getTime();
  if (!member) return [401, "This token's owner is no longer a member of the organization it was minted in"];
  if (t.revoked_at || (t.expires_at && t.expires_at.getTime() <= Date.now()))
    return [401, 'This personal access token has been revoked or has expired'];
  if (t.instance_status !== 'active' || !t.mcp_url) return [403, 'The instance is revoked or has no MCP URL'];
  return [t, user];
}

const server = http.createServer((req, res) => {
  const started = performance.now();
  const requestId = randomUUID();
  const [t, user] = check(req.headers.authorization);
  let status = 0;
  const done = () =>
    log.info(
      {
        requestId,
        method: req.method,
        route: '/mcp',
        status: status || res.statusCode,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        caller: typeof t === 'object' ? { kind: 'pat', id: t.id } : { kind: 'anonymous' },
      },
      'request',
    );
  res.once('close', done);
  if (typeof t === 'number') return refuse(res, t, user);
  let url = upstreams.get(t.mcp_url);
  if (!url) upstreams.set(t.mcp_url, (url = new URL(t.mcp_url)));
  const headers = { authorization: `Bearer ${assertion(t, user, t.mcp_url)}`, 'x-request-id': requestId };
  for (const name of FORWARDED) if (req.headers[name] !== undefined) headers[name] = req.headers[name];
  const up = http.request(
    { agent, host: url.hostname, port: url.port, path: url.pathname, method: req.method, headers },
    (answer) => {
      status = answer.statusCode;
      const out = { 'x-request-id': requestId };
      for (const name of ['content-type', 'content-length', 'mcp-session-id', 'cache-control'])
        if (answer.headers[name] !== undefined) out[name] = answer.headers[name];
      res.writeHead(answer.statusCode, out);
      answer.pipe(res);
    },
  );
  up.on('error', (err) => {
    if (!res.headersSent) refuse(res, 502, `The instance did not answer: ${err.message}`);
    else res.destroy();
  });
  res.once('close', () => {
    if (!res.writableFinished) up.destroy();
  });
  // A call's body (small: a JSON-RPC message) goes out with the headers in one write, as the Hub sends it.
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => up.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 3996), '127.0.0.1', () =>
  console.log(`[same-work-proxy] listening on ${process.env.PORT} (${tokens.size} tokens)`),
);

for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () =>
    server.close(async () => {
      destination.flushSync();
      await sql.end({ timeout: 2 });
      process.exit(0);
    }),
  );

/**
 * The bench's same-work server (issue 36): plain node:http doing, once per request, the work the spec requires of
 * the Hub's cached catalog answers, and nothing more. The Hub's edge scenarios are measured against it (the
 * "same-work" ratios); the bare server (bare-server.mjs) stays the physical limit. Per request:
 *
 *   1. a request id: the caller's X-Request-Id when it looks like one, else a random UUID (the Hub's rule);
 *   2. the Hub's own response headers: copied from the Hub's answers at start (security headers, CSP,
 *      Cache-Control, Vary, Content-Type…), precomputed as flat arrays; Date is node:http's;
 *   3. the credential: the bearer key hashed with SHA-256 and looked up in memory (active instance keys loaded
 *      from the bench database at start); an unknown key is 401;
 *   4. a token bucket per key (per address when anonymous), its capacity and refill the Hub's limits per minute
 *      (HUB_RATE_LIMIT_CREDENTIAL / HUB_RATE_LIMIT_ANONYMOUS); the RateLimit-Policy and RateLimit headers the
 *      Hub sends; an empty bucket is 429 with Retry-After;
 *   5. a last-used mark: at most one per key a minute, in memory, written by one UPDATE a second for every key
 *      marked meanwhile (the Hub's throttle and flush);
 *   6. the ETag compared: If-None-Match equal to the ETag of one of the answer's representations is 304;
 *   7. one pino access line (the Hub's fields: request id, method, route, status, duration, caller) to a file,
 *      in 4 KiB blocks like the Hub's log.
 *
 * Answers (the Hub's body bytes, identity and br, fetched once by the bench) are looked up by the request target
 * and the caller's organization. Environment: PORT, DATABASE_URL, SAMEWORK_ANSWERS (the manifest
 * below), SAMEWORK_LOG (the access log file), HUB_RATE_LIMIT_CREDENTIAL, HUB_RATE_LIMIT_ANONYMOUS.
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { Buffer } from 'node:buffer';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL, { max: 1, onnotice: () => {} });

/** Active instance keys by the SHA-256 of their secret (hex), as the Hub stores them. */
const keys = new Map();
for (const row of await sql`select id, org_id, key_hash from instance_keys where status = 'active'`)
  keys.set(row.key_hash, { id: row.id, orgId: row.org_id, caller: { kind: 'instance', id: row.id } });

/**
 * {answers: [{target, org (null: anonymous), etag, headers, headers304, identity: base64, br?: base64, brEtag?}]}:
 * the Hub's answer to that request target for that organization; headers ({name: value}) without the per-request
 * ones, of its 200 and of its 304.
 */
const manifest = JSON.parse(fs.readFileSync(process.env.SAMEWORK_ANSWERS, 'utf8'));
const answers = new Map();
for (const a of manifest.answers) {
  const fixed = Object.entries(a.headers).flat();
  const fixed304 = Object.entries(a.headers304).flat();
  const identity = Buffer.from(a.identity, 'base64');
  const br = a.br ? Buffer.from(a.br, 'base64') : undefined;
  answers.set(`${a.org ?? ''} ${a.target}`, {
    // The ETag of any representation of the same JSON matches (the Hub's weak comparison): identity, br, gzip.
    etags: new Set([a.etag, a.brEtag ?? a.etag, a.etag.replace(/"$/, '.gzip"')]),
    notModified: [...fixed304, 'etag', a.etag],
    identity: { body: identity, headers: [...fixed, 'etag', a.etag, 'content-length', String(identity.byteLength)] },
    br: br && {
      body: br,
      headers: [
        ...fixed,
        'etag',
        a.brEtag ?? a.etag,
        'content-encoding',
        'br',
        'content-length',
        String(br.byteLength),
      ],
    },
  });
}

// ------------------------------------------------------------------ rate limit: a token bucket per key or address

const WINDOW_S = 60;
const limitOf = (name, fallback) => {
  const n = Number(process.env[name]);
  return Number.isInteger(n) && n > 0 ? n : fallback;
};
const LIMITS = {
  credential: limitOf('HUB_RATE_LIMIT_CREDENTIAL', 1200),
  anonymous: limitOf('HUB_RATE_LIMIT_ANONYMOUS', 120),
};
const POLICY = {
  credential: `"credential";q=${LIMITS.credential};w=${WINDOW_S}`,
  anonymous: `"anonymous";q=${LIMITS.anonymous};w=${WINDOW_S}`,
};
const buckets = new Map();

/** Takes one token; the tokens left (whole), or -1 when the bucket is empty. */
function take(name, key, now) {
  const limit = LIMITS[name];
  let b = buckets.get(key);
  if (!b) buckets.set(key, (b = { tokens: limit, at: now }));
  b.tokens = Math.min(limit, b.tokens + ((now - b.at) * limit) / (WINDOW_S * 1000));
  b.at = now;
  if (b.tokens < 1) return -1;
  b.tokens -= 1;
  return Math.floor(b.tokens);
}

// ------------------------------------------------------------------ last-used marks (the Hub's throttle and flush)

const LAST_USED_INTERVAL_MS = 60_000;
const touched = new Map();
const pending = new Set();
let flushTimer = null;
function touch(id, now) {
  if (now - (touched.get(id) ?? 0) < LAST_USED_INTERVAL_MS) return;
  touched.set(id, now);
  pending.add(id);
  flushTimer ??= setTimeout(flushLastUsed, 1_000);
}
async function flushLastUsed() {
  flushTimer = null;
  const ids = [...pending];
  pending.clear();
  if (ids.length === 0) return;
  await sql`update instance_keys set last_used_at = now()
             where id = any(${ids}::uuid[]) and (last_used_at is null or last_used_at < now() - interval '1 minute')`.catch(
    (err) => log.warn({ err: err.message }, 'could not record credential use'),
  );
}

// ------------------------------------------------------------------ access log

const destination = pino.destination({ dest: process.env.SAMEWORK_LOG, sync: false, minLength: 4096 });
const log = pino({ base: { service: 'same-work' } }, destination);
const ANONYMOUS = { kind: 'anonymous' };
const REQUEST_ID = /^[A-Za-z0-9._:-]{8,128}$/; // @shared/logger's REQUEST_ID

function refuse(res, status, code, message, headers = []) {
  const body = JSON.stringify({ error: { code, message } });
  res.writeHead(status, [...headers, 'content-type', 'application/json', 'content-length', String(body.length)]);
  res.end(body);
}

const server = http.createServer((req, res) => {
  const started = performance.now();
  const given = req.headers['x-request-id'];
  const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
  const url = req.url ?? '/';
  const q = url.indexOf('?');
  const route = q === -1 ? url : url.slice(0, q);
  const now = Date.now();
  let caller = ANONYMOUS;
  let org = '';
  let limit = 'anonymous';
  let bucketKey = req.socket.remoteAddress;
  const auth = req.headers.authorization;
  answer: {
    if (auth !== undefined) {
      const key = auth.startsWith('Bearer ') && keys.get(createHash('sha256').update(auth.slice(7)).digest('hex'));
      if (!key) {
        refuse(res, 401, 'UNAUTHORIZED', 'Unknown or revoked credential', ['x-request-id', requestId]);
        break answer;
      }
      caller = key.caller;
      org = key.orgId;
      limit = 'credential';
      bucketKey = key.id;
      touch(key.id, now);
    }
    const remaining = take(limit, bucketKey, now);
    const rate = ['x-request-id', requestId, 'ratelimit-policy', POLICY[limit]];
    if (remaining < 0) {
      rate.push('ratelimit', `"${limit}";r=0;t=1`, 'retry-after', '1');
      refuse(res, 429, 'RATE_LIMITED', 'Too many requests', rate);
      break answer;
    }
    rate.push('ratelimit', `"${limit}";r=${remaining};t=${WINDOW_S - (Math.floor(now / 1000) % WINDOW_S)}`);
    const a = answers.get(`${org} ${url}`);
    if (!a) {
      refuse(res, 404, 'NOT_FOUND', 'No such answer in the same-work server', rate);
      break answer;
    }
    if (a.etags.has(req.headers['if-none-match'])) {
      res.writeHead(304, a.notModified.concat(rate)).end();
      break answer;
    }
    const sent = a.br && /\bbr\b/.test(req.headers['accept-encoding'] ?? '') ? a.br : a.identity;
    res.writeHead(200, sent.headers.concat(rate)).end(sent.body);
  }
  log.info(
    {
      requestId,
      method: req.method,
      route,
      status: res.statusCode,
      durationMs: Math.round((performance.now() - started) * 10) / 10,
      caller,
    },
    'request',
  );
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 3997), '127.0.0.1', () =>
  console.log(`[same-work] listening on ${process.env.PORT} (${keys.size} keys, ${answers.size} answers)`),
);

for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () =>
    server.close(async () => {
      await flushLastUsed();
      destination.flushSync();
      await sql.end({ timeout: 2 });
      process.exit(0);
    }),
  );

/**
 * What each kind of credential costs per request, and that the machine-token audit keeps up:
 * Core's real server (in process, PostgreSQL or PGlite) under autocannon on loopback, GET /api/v1/secrets
 * with a Core session JWT, an OIDC JWT (real oidc-provider, JWKS cached), an opaque OIDC token
 * (userinfo, cached) and an svm_ machine token (one audit record per request, batched). Afterwards the
 * audit must hold exactly as many records as the machine-token requests answered.
 *
 *   npm run bench:core [-- --duration 5 --connections 10 --database postgres://postgres@127.0.0.1:5432/postgres]
 */
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { count, eq } from 'drizzle-orm';
import { machineTokenAudit } from '../src/db/schema';
import { startOidcProvider } from '../tests/fixtures/oidc';
import { freshDatabase, localUser, startCore } from '../tests/helpers';

interface LoadResult {
  '2xx': number;
  non2xx: number;
  errors: number;
  requests: { average: number; sent: number };
  latency: { p50: number; p99: number };
}
const load = (opts: Record<string, unknown>) =>
  new Promise<LoadResult>((resolve, reject) =>
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result as LoadResult))),
  );

const { values } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '10' },
    database: { type: 'string' },
  },
});
const duration = Number(values.duration);
const connections = Number(values.connections);

const oidc = await startOidcProvider();
const db = await freshDatabase(values.database);
const t = await startCore(
  {
    temporaryAdmin: { username: 'bench', password: 'bench password 123' },
    oidc: { issuer: oidc.issuer, clientId: oidc.clientId, audience: oidc.audience, scopes: 'openid' },
    logLevel: 'warn',
  },
  db,
);
try {
  const temp = (
    await t.call('POST', '/api/v1/auth/login', { body: { username: 'bench', password: 'bench password 123' } })
  ).body.access_token;
  const machine = (await t.call('POST', '/api/v1/tokens', { token: temp, body: { name: 'bench', role: 'readonly' } }))
    .body;
  const credentials: Record<string, string> = {
    'Core session JWT (local user)': (await localUser(t, temp, 'readonly')).token,
    'OIDC JWT (JWKS)': await oidc.mint({ subject: 'bench-jwt' }),
    'OIDC opaque (userinfo, cached)': await oidc.mint({ subject: 'bench-opaque' }, { resource: null }),
    'svm_ machine token (audited)': machine.token,
  };
  for (let i = 0; i < 10; i++) await t.call('PUT', `/api/v1/secrets/s${i}`, { token: temp, body: { value: 'v' } });

  const rows: string[] = [];
  let machine2xx = 0;
  let machineSent = 0;
  // Warm-up (JIT, caches), not measured.
  await load({
    url: `${t.url}/api/v1/secrets`,
    headers: { authorization: `Bearer ${credentials['Core session JWT (local user)']}` },
    duration: 1,
    connections,
  });
  for (const [name, token] of Object.entries(credentials)) {
    const r = await load({
      url: `${t.url}/api/v1/secrets`,
      headers: { authorization: `Bearer ${token}` },
      duration,
      connections,
    });
    const ok = r['2xx'];
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    if (name.startsWith('svm_')) {
      machine2xx = ok;
      machineSent = r.requests.sent;
    }
    rows.push(`| ${name} | ${Math.round(r.requests.average)} | ${r.latency.p50} | ${r.latency.p99} | ${ok} |`);
  }
  await t.core.audit.flush();
  const [audited] = await t.core.db
    .select({ n: count() })
    .from(machineTokenAudit)
    .where(eq(machineTokenAudit.tokenId, machine.id));
  console.log(`\nCore, ${t.core.database.kind}, ${connections} connections, ${duration} s each, GET /api/v1/secrets\n`);
  console.log('| Credential | req/s | p50 ms | p99 ms | answered |\n|---|---|---|---|---|');
  console.log(rows.join('\n'));
  // autocannon stops counting with requests still in flight: the server answered between 2xx and sent.
  const n = audited?.n ?? 0;
  const complete = n >= machine2xx && n <= machineSent;
  console.log(
    `\nAudit records for the machine token: ${n}; ` +
      `requests answered as counted by the client: ${machine2xx}, sent: ${machineSent}` +
      (complete ? ' (none lost)' : ' — MISMATCH'),
  );
  if (!complete) process.exitCode = 1;
} finally {
  await t.stop();
  await oidc.close();
  await db.drop();
}

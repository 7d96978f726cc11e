/**
 * The bench's baseline: a minimal node:http server with postgres.js that answers the catalog requests of
 * the benchmark the straightforward way, with the same SQL shape and the same response bodies as the Hub:
 *
 *   - every request goes to the database (no cache of answers, no ETag);
 *   - instance keys are checked per request by the SHA-256 of the secret (key + organization in one query),
 *     with the Hub's checksum pre-check and its once-a-minute last_used_at throttle;
 *   - JWTs are verified with jose against the Hub's public keys (read once at start) and the user's role is
 *     read per request, as the Hub does;
 *   - a list is one query with the visibility join plus a count(*) for pagination (run in parallel); a search
 *     matches and ranks as the Hub's does (name, description or a whole tag; every match ranked, then sorted);
 *   - get by slug reads the template then increments download_count (UPDATE … RETURNING), as the Hub does;
 *   - the updates poll takes the same sync watermark (advisory lock, clock_timestamp) as the Hub.
 *
 * Fair, not crippled: one connection pool of the Hub's default size, prepared statements (postgres.js
 * default), keep-alive HTTP, the same indexes. Environment: DATABASE_URL, PORT, HUB_URL (issuer of the
 * Hub's JWTs), DATABASE_POOL_SIZE (default 10).
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import { crc32 } from 'node:zlib';
import { createLocalJWKSet, jwtVerify } from 'jose';
import postgres from 'postgres';

const sql = postgres(process.env.DATABASE_URL, {
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
  onnotice: () => {},
  connection: { application_name: 'bench-baseline' },
});
const issuer = (process.env.HUB_URL ?? '').replace(/\/+$/, '');
const CATALOG_SYNC_LOCK = 72_620_002; // server/domain/catalog/writes.ts

// ---------------------------------------------------------------- credentials

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function checksum(body) {
  let n = crc32(body);
  let out = '';
  for (let i = 0; i < 6; i++) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out;
}
const SHAPE = /^(svh_|svp_)[0-9A-Za-z]{38}$/;
const wellFormed = (s) => SHAPE.test(s) && checksum(s.slice(0, -6)) === s.slice(-6);

const keys = await sql`select public_jwk, kid, alg from signing_keys`;
const jwks = createLocalJWKSet({ keys: keys.map((k) => ({ ...k.public_jwk, kid: k.kid, alg: k.alg, use: 'sig' })) });

class HttpError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const lastTouched = new Map();
function touchLastUsed(id) {
  const now = Date.now();
  if (now - (lastTouched.get(id) ?? 0) < 60_000) return;
  lastTouched.set(id, now);
  sql`update instance_keys set last_used_at = now()
       where id = ${id} and (last_used_at is null or last_used_at < now() - interval '1 minute')`.catch(() => {});
}

/** → { kind: 'anonymous' } | { kind: 'instance', orgId } | { kind: 'user', role, orgId } */
async function principalOf(req) {
  const header = req.headers.authorization;
  if (header === undefined) return { kind: 'anonymous' };
  const token = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
  if (!token) throw new HttpError(401, 'UNAUTHORIZED', 'The Authorization header must be "Bearer <token>"');
  if (token.startsWith('svp_'))
    throw new HttpError(401, 'UNAUTHORIZED', 'Personal access tokens are accepted only at the /mcp endpoint');
  if (token.startsWith('svh_')) {
    if (!wellFormed(token)) throw new HttpError(401, 'UNAUTHORIZED', 'Malformed instance key');
    const hash = createHash('sha256').update(token).digest('hex');
    const [key] = await sql`select k.id, k.org_id, k.status, o.status as org_status
                              from instance_keys k join organizations o on o.id = k.org_id
                             where k.key_hash = ${hash}`;
    if (!key) throw new HttpError(401, 'UNAUTHORIZED', 'Unknown instance key');
    if (key.status !== 'active') throw new HttpError(401, 'UNAUTHORIZED', 'This instance key has been revoked');
    if (key.org_status !== 'active')
      throw new HttpError(403, 'FORBIDDEN', 'The organization of this instance key is suspended');
    touchLastUsed(key.id);
    return { kind: 'instance', orgId: key.org_id };
  }
  let sub;
  try {
    ({ sub } = (
      await jwtVerify(token, jwks, {
        algorithms: ['ES256'],
        issuer,
        audience: 'hub-api',
        requiredClaims: ['sub', 'exp'],
      })
    ).payload);
  } catch {
    throw new HttpError(401, 'UNAUTHORIZED', 'Invalid or expired token');
  }
  const [user] = await sql`select id, role, org_id from users where id = ${sub}`;
  if (!user) throw new HttpError(401, 'UNAUTHORIZED', 'This user no longer exists');
  return { kind: 'user', role: user.role, orgId: user.org_id };
}

function scopeOf(principal) {
  if (principal.kind === 'user' && (principal.role === 'admin' || principal.role === 'superadmin'))
    return { kind: 'admin' };
  if (principal.orgId) return { kind: 'org', orgId: principal.orgId };
  return { kind: 'anonymous' };
}

// ---------------------------------------------------------------- catalog SQL (server/domain/catalog/*)

function templateVisible(scope) {
  if (scope.kind === 'admin') return sql`true`;
  if (scope.kind === 'anonymous') return sql`(t.is_public = true and c.is_private = false)`;
  return sql`(t.org_id = ${scope.orgId} or (t.is_public = true and c.is_private = false)
              or (c.is_private = true and exists (select 1 from access_grants g where g.org_id = ${scope.orgId} and g.category_id = c.id)))`;
}

function categoryVisible(scope) {
  if (scope.kind === 'admin') return sql`true`;
  if (scope.kind === 'anonymous') return sql`c.is_private = false`;
  return sql`(c.is_private = false or exists (select 1 from access_grants g where g.org_id = ${scope.orgId} and g.category_id = c.id))`;
}

const TEMPLATE_COLUMNS = sql`t.id, t.name, t.slug, t.description, t.version, t.kind, t.category_id, c.name as category_name,
  c.slug as category_slug, c.icon as category_icon, t.image_name, t.image_tag, t.cpu_request, t.memory_request, t.gpu_count,
  t.vram_request, t.concurrent_jobs, t.env, t.env_schema, t.ports, t.volume_mounts, t.node_selector, t.required_network_types,
  t.tags, t.is_public, t.is_featured, t.min_tier, t.download_count, t.documentation, t.updated_at`;
const ADMIN_COLUMNS = sql`, t.registry_url, (t.registry_credentials_enc is not null) as has_registry_credentials, t.secret_refs,
  t.command, t.tolerations, t.icon_url, t.org_id, t.created_at`;

function toTemplate(r) {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    description: r.description,
    version: r.version,
    kind: r.kind,
    category_id: r.category_id,
    category_name: r.category_name,
    category_slug: r.category_slug,
    category_icon: r.category_icon,
    image_name: r.image_name,
    image_tag: r.image_tag,
    cpu_request: r.cpu_request,
    memory_request: r.memory_request,
    gpu_count: r.gpu_count,
    vram_request: r.vram_request,
    concurrent_jobs: r.concurrent_jobs,
    env: r.env,
    env_schema: r.env_schema,
    ports: r.ports,
    volume_mounts: r.volume_mounts,
    node_selector: r.node_selector,
    required_network_types: r.required_network_types,
    tags: r.tags,
    is_public: r.is_public,
    is_featured: r.is_featured,
    min_tier: r.min_tier,
    download_count: Number(r.download_count),
    documentation: r.documentation,
    updated_at: new Date(r.updated_at).toISOString(),
  };
}

function toAdminTemplate(r) {
  return {
    ...toTemplate(r),
    registry_url: r.registry_url,
    registry_credentials: r.has_registry_credentials ? '********' : null,
    secret_refs: r.secret_refs,
    command: r.command,
    tolerations: r.tolerations,
    icon_url: r.icon_url,
    org_id: r.org_id,
    created_at: new Date(r.created_at).toISOString(),
  };
}

function badRequest(message) {
  throw new HttpError(400, 'BAD_REQUEST', message);
}

function intParam(params, name, min) {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (!/^-?\d+$/.test(raw.trim()) || Number(raw) < min)
    badRequest(`Invalid input: ${name}: must be an integer of at least ${min}`);
  return Number(raw);
}

function filtersOf(params) {
  const conditions = [];
  const category = params.get('category')?.trim();
  if (category) conditions.push(sql`c.slug = ${category}`);
  const search = params.get('search')?.trim();
  if (search) {
    const pattern = `%${escapeLike(search)}%`;
    conditions.push(sql`(t.name ilike ${pattern} or t.description ilike ${pattern} or ${tagIs(search)})`);
  }
  const featured = params.get('featured');
  if (featured !== null && featured !== 'true' && featured !== 'false')
    badRequest('Invalid input: featured: must be true or false');
  if (featured === 'true') conditions.push(sql`t.is_featured = true`);
  const tags = (params.get('tags') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (tags.length > 0) conditions.push(sql`t.tags && ${tags}::text[]`);
  return conditions;
}

function escapeLike(term) {
  return term.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** A tag equal to the term, whatever the case (the Hub's search matches whole tags). */
const tagIs = (term) => sql`exists (select 1 from unnest(t.tags) as tag where lower(tag) = lower(${term}))`;

/** The Hub's search order (docs/hub.md, "Search ranking"), the straightforward way: every match ranked, then sorted. */
function searchOrder(term) {
  const escaped = escapeLike(term);
  return sql`case when lower(t.name) = lower(${term}) then 0
                  when lower(t.name) like lower(${`${escaped}%`}) then 1
                  when lower(t.name) like lower(${`%${escaped}%`}) then 2
                  when ${tagIs(term)} then 3 else 4 end, lower(t.name) collate "C", t.id`;
}

function and(conditions) {
  return conditions.reduce((acc, c) => sql`${acc} and ${c}`);
}

async function listTemplates(scope, params, admin = false) {
  const page = intParam(params, 'page', 1) ?? 1;
  const limit = Math.min(intParam(params, 'limit', 1) ?? 50, 100);
  const where = and([templateVisible(scope), ...filtersOf(params)]);
  const search = params.get('search')?.trim();
  const [rows, [{ n }]] = await Promise.all([
    sql`select ${TEMPLATE_COLUMNS} ${admin ? ADMIN_COLUMNS : sql``}
          from templates t join categories c on c.id = t.category_id
         where ${where}
         order by ${search ? searchOrder(search) : sql`t.is_featured desc, t.name asc, t.id asc`}
         limit ${limit} offset ${(page - 1) * limit}`,
    sql`select count(*)::int as n from templates t join categories c on c.id = t.category_id where ${where}`,
  ]);
  return {
    templates: rows.map(admin ? toAdminTemplate : toTemplate),
    pagination: { page, limit, total: n, totalPages: Math.ceil(n / limit) },
  };
}

async function getTemplate(scope, principal, slug) {
  const [row] = await sql`select ${TEMPLATE_COLUMNS} from templates t join categories c on c.id = t.category_id
                           where t.slug = ${slug} and ${templateVisible(scope)}`;
  if (!row) throw new HttpError(404, 'NOT_FOUND', `Template "${slug}" not found`);
  const template = toTemplate(row);
  if (principal.kind === 'instance') {
    const [counted] =
      await sql`update templates set download_count = download_count + 1 where id = ${row.id} returning download_count`;
    template.download_count = Number(counted?.download_count ?? 0);
  }
  return template;
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

async function templateUpdates(scope, params) {
  const since = params.get('since');
  if (!since || !ISO.test(since) || Number.isNaN(Date.parse(since))) {
    badRequest('Invalid input: since: must be an ISO 8601 timestamp, e.g. 2026-01-31T12:00:00Z');
  }
  const checkedAt = await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(${CATALOG_SYNC_LOCK})`;
    const [row] = await tx`select date_trunc('milliseconds', clock_timestamp()) as at`;
    return new Date(row.at);
  });
  const audience =
    scope.kind === 'admin'
      ? sql`true`
      : scope.kind === 'org'
        ? sql`(e.audience = 'everyone' or (e.audience = 'org' and e.audience_org_id = ${scope.orgId}))`
        : sql`e.audience = 'everyone'`;
  const sinceDate = new Date(since);
  const [rows, removed] = await Promise.all([
    sql`select ${TEMPLATE_COLUMNS} from templates t join categories c on c.id = t.category_id
         where ${templateVisible(scope)} and t.updated_at >= ${sinceDate}
         order by t.updated_at asc, t.id asc`,
    sql`select e.template_id as id, e.slug, max(e.at) as removed_at
          from template_exits e
         where e.at >= ${sinceDate} and ${audience}
           and not exists (select 1 from templates t join categories c on c.id = t.category_id
                            where t.id = e.template_id and ${templateVisible(scope)})
         group by e.template_id, e.slug
         order by removed_at, id`,
  ]);
  return {
    templates: rows.map(toTemplate),
    removed: removed.map((r) => ({ id: r.id, slug: r.slug, removed_at: new Date(r.removed_at).toISOString() })),
    checked_at: checkedAt.toISOString(),
    has_more: false, // every change in one answer (the Hub pages them by 500)
  };
}

async function listCategories(scope) {
  const rows = await sql`
    select c.id, c.name, c.slug, c.description, c.icon, c.sort_order, c.is_private,
           (select count(*)::int from templates t where t.category_id = c.id and ${templateVisible(scope)}) as template_count
      from categories c
     where ${categoryVisible(scope)}
     order by c.sort_order asc, c.name asc, c.id asc`;
  return {
    categories: rows.map((r) => ({
      id: r.id,
      name: r.name,
      slug: r.slug,
      description: r.description,
      icon: r.icon,
      sort_order: r.sort_order,
      is_private: r.is_private,
      template_count: Number(r.template_count),
    })),
  };
}

// ---------------------------------------------------------------- HTTP

async function route(req, url) {
  const path = url.pathname;
  if (path === '/healthz') return { ok: true };
  if (req.method !== 'GET') throw new HttpError(405, 'METHOD_NOT_SUPPORTED', 'Only GET is served by the baseline');
  const principal = await principalOf(req);
  const scope = scopeOf(principal);
  if (path === '/api/v1/catalog/templates') return listTemplates(scope, url.searchParams);
  if (path === '/api/v1/catalog/templates/updates') return templateUpdates(scope, url.searchParams);
  if (path.startsWith('/api/v1/catalog/templates/'))
    return getTemplate(scope, principal, decodeURIComponent(path.slice('/api/v1/catalog/templates/'.length)));
  if (path === '/api/v1/catalog/categories') return listCategories(scope);
  if (path === '/api/v1/admin/templates') {
    if (principal.kind !== 'user') throw new HttpError(401, 'UNAUTHORIZED', 'Sign in first');
    if (scope.kind !== 'admin') throw new HttpError(403, 'FORBIDDEN', 'Platform admins only');
    return listTemplates(scope, url.searchParams, true);
  }
  throw new HttpError(404, 'NOT_FOUND', 'No such endpoint');
}

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://baseline');
  route(req, url).then(
    (body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    },
    (err) => {
      const status = err instanceof HttpError ? err.status : 500;
      if (status === 500) console.error('[baseline]', err);
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          code: err.code ?? 'INTERNAL_SERVER_ERROR',
          message: status === 500 ? 'Internal error' : err.message,
        }),
      );
    },
  );
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 3999), '127.0.0.1', () =>
  console.log(`[baseline] listening on ${process.env.PORT}`),
);

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close();
    void sql.end({ timeout: 1 }).finally(() => process.exit(0));
  });
}

/**
 * Schema-driven fuzz of /api/v1: every operation of the published OpenAPI document, called through the
 * real REST handler with inputs generated from its request schema (a plausible input, then mutations:
 * wrong types, missing required fields, unknown fields, huge strings, NUL characters, prototype-named
 * keys, bad UUIDs, out-of-range numbers and dates, malformed or non-object JSON bodies), once per
 * credential kind. Three properties hold for every answer: no 5xx; every error body is `{code, message}`
 * with string values; every 2xx body is valid against the operation's declared response schema.
 *
 * Reproducible: a seeded PRNG (FUZZ_SEED overrides the default seed); every failure names the seed, the
 * credential, the operation and the input. Every operation in the document answers JSON, so none is
 * exempt; the test fails if the document gains an operation it cannot build a request for.
 */
import { randomUUID } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { beforeAll, expect, it } from 'vitest';
import { openApiDocument } from '../server/api/openapi';
import { createInvitation } from '../server/domain/invitations';
import { api, createCategory, createKey, createOrg, createTemplate, createUser, grantAccess, principalOf, unique } from './helpers';

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed13);
/** Mutated inputs per operation per credential, after the one plausible input. */
const MUTATIONS_PER_CALL = 5;

type Schema = Record<string, any>;
type Json = unknown;
interface Param {
  name: string;
  in: 'query' | 'path';
  required?: boolean;
  schema?: Schema;
}
interface Operation {
  method: string;
  path: string;
  params: Param[];
  body?: Schema;
  response: Schema;
}

/** mulberry32: small, fast and good enough to pick test inputs. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
type Rng = ReturnType<typeof prng>;

const ops: Operation[] = [];
const ORDER = ['get', 'post', 'put', 'delete'];
for (const [path, item] of Object.entries<any>(openApiDocument().paths ?? {})) {
  for (const [method, op] of Object.entries<any>(item)) {
    ops.push({
      method,
      path,
      params: op.parameters ?? [],
      body: op.requestBody?.content?.['application/json']?.schema,
      response: op.responses?.['200']?.content?.['application/json']?.schema,
    });
  }
}
// Reads first, destructive calls last, then leaving the organization (which ends the member's org
// operations) and signing out everywhere (which ends the JWTs' sessions) at the very end, so the
// credentials stay usable for as long as possible.
const LAST = ['/account/leave', '/account/sign-out-everywhere'];
const rank = (op: Operation) => (LAST.includes(op.path) ? ORDER.length + LAST.indexOf(op.path) : ORDER.indexOf(op.method));
ops.sort((a, b) => rank(a) - rank(b));

/**
 * Values that name real rows (so plausible inputs reach past "not found"), filled in beforeAll; the users
 * behind the credentials are not among them, so no fuzzed call deletes or demotes a caller.
 */
const known = { uuids: [] as string[], slugs: [] as string[], byField: {} as Record<string, string[]>, idsByPath: {} as Record<string, string[]> };
/** The ids an `id` field of the operation being generated names (its path's rows). */
let idPool: string[] = [];

function generate(schema: Schema | undefined, rng: Rng, name = ''): Json {
  if (!schema) return null;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return generate(rng.pick(alternatives), rng, name);
  if (schema.allOf) return generate(Object.assign({}, ...schema.allOf), rng, name);
  if ('const' in schema) return schema.const;
  if (schema.enum) return rng.pick(schema.enum);
  const type = Array.isArray(schema.type) ? rng.pick(schema.type.filter((t: string) => t !== 'null')) : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, Json> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {})) {
        if (required.has(key) || rng.chance(0.5)) out[key] = generate(sub, rng, key);
      }
      return out;
    }
    case 'array':
      return Array.from({ length: rng.int(0, Math.min(3, schema.maxItems ?? 3)) }, () => generate(schema.items, rng, name));
    case 'integer':
    case 'number': {
      const lo = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
      const hi = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : lo + 100);
      return rng.int(lo, Math.min(hi, lo + 1000));
    }
    case 'boolean':
      return rng.chance(0.5);
    case 'string':
      return plausibleString(schema, rng, name);
    default:
      return rng.pick(['x', 1, true, null]);
  }
}

function plausibleString(schema: Schema, rng: Rng, name: string): string {
  if (schema.format === 'uuid' || /(^id$|_id$)/.test(name)) return rng.chance(0.8) ? rng.pick(known.byField[name] ?? (name === 'id' && idPool.length ? idPool : known.uuids)) : randomUUID();
  if (schema.format === 'date-time' || /^(since|until)$/.test(name)) return new Date(Date.now() - rng.int(0, 1e10)).toISOString();
  if (name === 'ip') return rng.chance(0.5) ? `203.0.113.${rng.int(1, 254)}` : `2001:db8::${rng.int(1, 9999)}`;
  if (schema.format === 'email' || name === 'email') return `fuzz${rng.int(0, 1e6)}@example.test`;
  if (schema.format === 'uri' || /url/.test(name)) return `https://example.test/${rng.int(0, 1e6)}`;
  if (name === 'slug') return rng.chance(0.5) ? rng.pick(known.slugs) : `fuzz-${rng.int(0, 1e6)}`;
  const min = schema.minLength ?? 1;
  const max = Math.min(schema.maxLength ?? 24, min + 24);
  const letters = 'abcdefghijklmnopqrstuvwxyz0123456789-';
  return Array.from({ length: rng.int(min, Math.max(min, max)) }, (_, i) => (i === 0 ? 'f' : rng.pick([...letters]))).join('');
}

/** Values of the wrong shape or beyond every sane range. */
const HOSTILE: readonly Json[] = [
  'x'.repeat(200_000),
  'a\u0000b',
  'not-a-uuid',
  '00000000-0000-0000-0000-00000000000g',
  -1,
  1e308,
  2 ** 53 + 1,
  -2147483649,
  1.5,
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.001Z',
  'yesterday',
  '',
  true,
  null,
  [],
  [1, 'two', null],
  { nested: { deeper: ['x'] } },
  '\ud800',
  '../../etc/passwd',
  "' or 1=1 --",
];
const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

interface Input {
  label: string;
  path: string;
  query: Record<string, string>;
  body?: Json;
  rawBody?: string;
  headers?: Record<string, string>;
}

function plausible(op: Operation, rng: Rng): Input {
  idPool = known.idsByPath[op.path.replace(/\/\{id\}.*$/, '')] ?? [];
  let path = op.path;
  const query: Record<string, string> = {};
  for (const p of op.params) {
    const value = generate(p.schema, rng, p.name);
    if (p.in === 'path') path = path.replace(`{${p.name}}`, encodeURIComponent(String(value)));
    else if (p.required || rng.chance(0.5)) query[p.name] = Array.isArray(value) ? value.join(',') : String(value);
  }
  const withBody = op.body && op.method !== 'delete';
  return { label: 'plausible', path, query, body: withBody ? generate(op.body, rng) : undefined };
}

/** A lone surrogate cannot be percent-encoded; send the invalid UTF-8 it would be instead. */
function encodeSegment(value: string) {
  try {
    return encodeURIComponent(value);
  } catch {
    return '%ED%A0%80';
  }
}

const asText = (v: Json) => (typeof v === 'string' ? v : JSON.stringify(v));

/** One mutation of a plausible input; the label says which, for the failure message. */
function mutate(op: Operation, base: Input, rng: Rng): Input {
  const input: Input = { ...base, query: { ...base.query } };
  const body = (base.body && typeof base.body === 'object' && !Array.isArray(base.body) ? { ...(base.body as object) } : {}) as Record<string, Json>;
  const fields = Object.keys((op.body?.properties as object) ?? {});
  const queryParams = op.params.filter((p) => p.in === 'query').map((p) => p.name);
  const pathParams = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  // A GET cannot carry a body (fetch refuses to build one), so its mutations are in the URL.
  const kinds = op.method === 'get' ? ['missing-required', 'proto-key'] : ['hostile-field', 'missing-required', 'unknown-field', 'proto-key', 'malformed-json', 'non-object-body', 'wrong-media-type'];
  if (queryParams.length) kinds.push('hostile-query', 'hostile-query');
  if (pathParams.length) kinds.push('hostile-path', 'hostile-path');
  if (fields.length && op.method !== 'get') kinds.push('hostile-field', 'hostile-field');
  const kind = rng.pick(kinds);
  const hostile = rng.pick(HOSTILE);
  switch (kind) {
    case 'hostile-field': {
      const field = fields.length ? rng.pick(fields) : 'id';
      body[field] = hostile;
      input.body = body;
      return { ...input, label: `${field} = ${asText(hostile).slice(0, 40)}` };
    }
    case 'missing-required': {
      const required: string[] = op.body?.required ?? [];
      for (const f of required) delete body[f];
      if (op.method !== 'get') input.body = body;
      for (const p of op.params) if (p.required && p.in === 'query') delete input.query[p.name];
      return { ...input, label: 'required fields missing' };
    }
    case 'unknown-field':
      input.body = { ...body, [`unknown_${rng.int(0, 99)}`]: hostile };
      return { ...input, label: 'unknown field' };
    case 'proto-key': {
      const key = rng.pick(PROTO_KEYS);
      input.query[key] = 'polluted';
      input.body = undefined;
      if (op.method === 'get') return { ...input, label: `?${key}=polluted` };
      // JSON text, because an object literal's __proto__ would not be serialized as a key.
      input.rawBody = JSON.stringify(body).replace(/^\{/, `{"${key}":{"polluted":true,"role":"superadmin"}${Object.keys(body).length ? ',' : ''}`);
      input.headers = { 'content-type': 'application/json' };
      return { ...input, label: `prototype key ${key}` };
    }
    case 'malformed-json':
      input.body = undefined;
      input.rawBody = rng.pick(['{"name":', '{name: 1}', '\u0000', '[1,2', '{"a":1}}', 'null x']);
      input.headers = { 'content-type': 'application/json' };
      return { ...input, label: `malformed JSON ${JSON.stringify(input.rawBody)}` };
    case 'non-object-body':
      input.body = rng.pick([[], null, 42, 'text', [body]]);
      return { ...input, label: `body ${JSON.stringify(input.body).slice(0, 40)}` };
    case 'wrong-media-type':
      input.body = undefined;
      input.rawBody = JSON.stringify(body);
      input.headers = { 'content-type': rng.pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) };
      return { ...input, label: `content-type ${input.headers['content-type']}` };
    case 'hostile-query': {
      const name = rng.pick(queryParams);
      input.query[name] = asText(hostile);
      return { ...input, label: `?${name}=${asText(hostile).slice(0, 40)}` };
    }
    default: {
      // Not empty: `/catalog/templates/` is the list, another operation, not a template with slug ''.
      const name = rng.pick(pathParams);
      const value = asText(hostile) || 'x';
      input.path = op.path.replace(`{${name}}`, encodeSegment(value));
      return { ...input, label: `{${name}} = ${value.slice(0, 40)}` };
    }
  }
}

const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
addFormats(ajv);

let credentials: { kind: string; headers: Record<string, string> }[];

beforeAll(async () => {
  const platformAdmin = await createUser({ role: 'superadmin', name: 'Platform Admin' });
  const orgAdmin = await createUser({ name: 'Org Admin' });
  const member = await createUser({ name: 'Member' });
  const victims = await Promise.all([createUser({ name: 'Victim' }), createUser({ name: 'Victim Two' })]);
  const org = await createOrg({ admin: orgAdmin, members: [member, victims[0]!] });
  const otherOrg = await createOrg({ admin: victims[1] });
  const key = await createKey(org.id, 'fuzz core');
  const spareKeys = await Promise.all([createKey(org.id, 'spare'), createKey(otherOrg.id, 'theirs')]);
  const category = await createCategory();
  const privateCategory = await createCategory({ isPrivate: true });
  const templates = await Promise.all([createTemplate({ categoryId: category.id }), createTemplate({ categoryId: privateCategory.id })]);
  const minted = await api('/account/tokens', { method: 'POST', token: member.token, body: { name: 'fuzz', instance_id: key.id } });
  expect(minted.status).toBe(200);
  known.uuids.push(
    ...[org, otherOrg, key, ...spareKeys, category, privateCategory, ...templates, ...victims].map((row) => row.id),
    minted.body.token.id,
  );
  known.slugs.push(...templates.map((t) => t.slug), category.slug);
  known.byField = {
    org_id: [org.id, otherOrg.id],
    category_id: [category.id, privateCategory.id],
    instance_id: [key.id, spareKeys[0]!.id],
    user_id: victims.map((v) => v.id),
  };
  const grant = await grantAccess(otherOrg.id, privateCategory.id);
  const ticket = await api('/support/tickets', { method: 'POST', headers: { authorization: `Bearer ${key.secret}` }, body: { subject: 'fuzz', body: 'help' } });
  expect(ticket.status).toBe(200);
  const invitations = await Promise.all(
    [`${unique('invitee')}@example.test`, platformAdmin.email].map((email) =>
      createInvitation(principalOf(orgAdmin, { id: org.id, role: 'admin' }), org.id, { email, role: 'member' }),
    ),
  );
  known.uuids.push(...invitations.map((i) => i.id));
  known.idsByPath = {
    '/account/invitations': invitations.map((i) => i.id),
    '/account/invitations/accept': invitations.map((i) => i.id),
    '/account/invitations/decline': invitations.map((i) => i.id),
    '/admin/templates': templates.map((t) => t.id),
    '/admin/categories': [category.id, privateCategory.id],
    '/admin/catalog-access': [grant.id],
    '/admin/users': victims.map((v) => v.id),
    '/admin/organizations': [otherOrg.id],
    '/admin/api-keys': spareKeys.map((k) => k.id),
    '/account/api-keys': spareKeys.map((k) => k.id),
    '/account/tokens': [minted.body.token.id],
    '/support/tickets': [ticket.body.ticket.id],
  };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  credentials = [
    { kind: 'none', headers: {} },
    { kind: 'garbage bearer', headers: bearer('garbage.\u00ff.token') },
    { kind: 'anonymous (empty Authorization)', headers: { authorization: '' } },
    { kind: 'instance key svh_', headers: bearer(key.secret) },
    { kind: 'user JWT', headers: bearer(member.token) },
    { kind: 'org admin JWT', headers: bearer(orgAdmin.token) },
    { kind: 'platform admin JWT', headers: bearer(platformAdmin.token) },
    { kind: 'PAT svp_', headers: bearer(minted.body.token.token) },
  ];
});

it(`every operation answers every credential and input without a 5xx, with {code, message} errors and schema-valid 2xx bodies (seed ${SEED})`, async () => {
  const rng = prng(SEED);
  const failures: string[] = [];
  const seen = { ok: 0, error: 0 };
  for (const op of ops) {
    const method = op.method.toUpperCase();
    expect(op.response, `${method} ${op.path} declares a JSON 200 response`).toBeDefined();
    const validate = ajv.compile(op.response);
    for (const cred of credentials) {
      const first = plausible(op, rng);
      const inputs = [first, ...Array.from({ length: MUTATIONS_PER_CALL }, () => mutate(op, first, rng))];
      for (const input of inputs) {
        const qs = new URLSearchParams(input.query).toString();
        const res = await api(`${input.path}${qs ? `?${qs}` : ''}`, {
          method,
          body: input.body,
          rawBody: input.rawBody,
          headers: { ...cred.headers, ...input.headers },
        });
        const where = `[seed ${SEED}] ${cred.kind} ${method} ${input.path}${qs ? `?${qs.slice(0, 80)}` : ''} (${input.label}) → ${res.status}`;
        const shown = JSON.stringify(res.body)?.slice(0, 300);
        if (res.status >= 500) failures.push(`${where}: 5xx ${shown}`);
        else if (res.status >= 200 && res.status < 300) {
          seen.ok++;
          if (!validate(res.body)) failures.push(`${where}: body does not match the response schema: ${ajv.errorsText(validate.errors)} in ${shown}`);
        } else {
          seen.error++;
          const b = res.body as { code?: unknown; message?: unknown } | null;
          if (typeof b?.code !== 'string' || typeof b.message !== 'string' || !b.code || !b.message) failures.push(`${where}: error body is not {code, message}: ${shown}`);
        }
        if (cred.kind === 'PAT svp_' && res.status !== 401) failures.push(`${where}: REST must refuse a personal access token (401)`);
      }
    }
  }
  expect(failures, `${failures.length} failures; rerun with FUZZ_SEED=${SEED}`).toEqual([]);
  // The fuzz reached past the refusals: plenty of calls succeeded and had their bodies checked.
  expect(seen.ok).toBeGreaterThan(ops.length);
  expect(seen.error).toBeGreaterThan(ops.length);
}, 120_000);

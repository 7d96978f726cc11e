/**
 * Fuzz of the two endpoints the OpenAPI document does not describe: tRPC (/api/trpc, every procedure of
 * the router, the dashboard's own included) and the MCP proxy (/mcp, with a real MCP server behind it).
 * Inputs come from each procedure's own input schema (a plausible input, then mutations), and from
 * malformed JSON-RPC for /mcp, once per credential kind.
 *
 * Properties: no 5xx (the MCP upstream is healthy, so not even a 502); every tRPC error is the tRPC error
 * shape with an HTTP status equal to the answer's; every /mcp error body is `{code, message}` (the Hub's
 * refusals) or a JSON-RPC error (the instance's or the proxy's); every 401 from /mcp says
 * `WWW-Authenticate: Bearer`. A seeded PRNG (FUZZ_SEED) makes every failure reproducible.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { GET, POST } from '../../app/api/trpc/[trpc]/route';
import { appRouter } from '../../server/api/root';
import { issueSecret } from '@shared/tokens';
import { asText, generate, HOSTILE, known, prng, PROTO_KEYS, type Json, type Rng, type Schema } from '../fuzz-inputs';
import { createCategory, createKey, createOrg, createTemplate, createUser } from '../helpers';
import { mintToken, registerMcpUrl, startHub, startUpstream, type RunningServer, type Upstream } from '../mcp-harness';

// The test's MCP server listens on loopback.
process.env.HUB_ALLOW_PRIVATE_UPSTREAMS = 'true';

const SEED = Number(process.env.FUZZ_SEED ?? 0x7e5c);
const MUTATIONS_PER_CALL = 4;

interface Procedure {
  path: string;
  type: 'query' | 'mutation';
  input: Schema | undefined;
}

/** Every procedure with its input as JSON schema (the procedures' zod schemas, as zod publishes them). */
const procedures: Procedure[] = Object.entries<any>(appRouter._def.procedures).map(([path, proc]) => {
  const schema = proc._def.inputs?.[0];
  let input: Schema | undefined;
  try {
    input = schema ? (z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema) : undefined;
  } catch {
    input = undefined; // a schema zod cannot describe: the fuzz still sends hostile inputs
  }
  return { path, type: proc._def.type, input };
});
// Signing out everywhere ends the JWTs' sessions: last, so the credentials work until then.
procedures.sort((a, b) => Number(a.path.endsWith('signOutEverywhere')) - Number(b.path.endsWith('signOutEverywhere')));

let credentials: { kind: string; headers: Record<string, string> }[];
let hub: RunningServer;
let upstream: Upstream;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

beforeAll(async () => {
  const platformAdmin = await createUser({ role: 'superadmin', name: 'Platform Admin' });
  const orgAdmin = await createUser({ name: 'Org Admin' });
  const member = await createUser({ name: 'Member' });
  const org = await createOrg({ admin: orgAdmin, members: [member] });
  const key = await createKey(org.id, 'fuzz core');
  const category = await createCategory();
  const template = await createTemplate({ categoryId: category.id });
  known.uuids.push(org.id, key.id, category.id, template.id);
  known.slugs.push(template.slug, category.slug);
  credentials = [
    { kind: 'none', headers: {} },
    { kind: 'garbage bearer', headers: bearer('garbage.\u00ff.token') },
    { kind: 'instance key svh_', headers: bearer(key.secret) },
    { kind: 'user JWT', headers: bearer(member.token) },
    { kind: 'org admin JWT', headers: bearer(orgAdmin.token) },
    { kind: 'platform admin JWT', headers: bearer(platformAdmin.token) },
  ];

  hub = await startHub();
  upstream = await startUpstream({ hubUrl: hub.url });
});

afterAll(async () => {
  await upstream?.close();
  await hub?.close();
});

/** One tRPC call (no batch) the way @trpc/client sends it: queries as GET ?input=, mutations as a POST body. */
async function callTrpc(proc: Procedure, headers: Record<string, string>, input: { json?: Json; raw?: string }) {
  const text = input.raw ?? (input.json === undefined ? undefined : JSON.stringify(input.json));
  const url = `http://hub.test/api/trpc/${proc.path}`;
  const res =
    proc.type === 'query'
      ? await GET(new Request(text === undefined ? url : `${url}?input=${encodeURIComponent(text)}`, { headers }))
      : await POST(
          new Request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text }),
        );
  const body = await res.text();
  let parsed: any = body;
  try {
    parsed = JSON.parse(body);
  } catch {
    /* not JSON: the assertion shows it */
  }
  return { status: res.status, body: parsed };
}

function mutateTrpc(proc: Procedure, base: Json, rng: Rng): { label: string; json?: Json; raw?: string } {
  const object = base && typeof base === 'object' && !Array.isArray(base) ? { ...(base as Record<string, Json>) } : {};
  const fields = Object.keys(proc.input?.properties ?? {});
  const hostile = rng.pick(HOSTILE);
  switch (
    rng.pick([
      'hostile-field',
      'hostile-field',
      'unknown-field',
      'proto-key',
      'non-object',
      'malformed-json',
      'missing',
    ])
  ) {
    case 'hostile-field': {
      const field = fields.length ? rng.pick(fields) : 'id';
      return { label: `${field} = ${asText(hostile).slice(0, 40)}`, json: { ...object, [field]: hostile } };
    }
    case 'unknown-field':
      return { label: 'unknown field', json: { ...object, [`unknown_${rng.int(0, 99)}`]: hostile } };
    case 'proto-key': {
      const key = rng.pick(PROTO_KEYS);
      return {
        label: `prototype key ${key}`,
        raw: JSON.stringify(object).replace(
          /^\{/,
          `{"${key}":{"role":"superadmin"}${Object.keys(object).length ? ',' : ''}`,
        ),
      };
    }
    case 'non-object':
      return { label: 'non-object input', json: rng.pick([[], 42, 'text', true, [object]]) };
    case 'malformed-json':
      return { label: 'malformed JSON', raw: rng.pick(['{"name":', '{name: 1}', '[1,2', '{"a":1}}']) };
    default:
      return { label: 'no input' };
  }
}

it(`every tRPC procedure answers every credential and input without a 5xx, in the tRPC error shape (seed ${SEED})`, async () => {
  const rng = prng(SEED);
  const failures: string[] = [];
  let ok = 0;
  for (const proc of procedures) {
    for (const cred of credentials) {
      const first = generate(proc.input, rng);
      const inputs = [
        { label: 'plausible', json: first },
        ...Array.from({ length: MUTATIONS_PER_CALL }, () => mutateTrpc(proc, first, rng)),
      ];
      for (const input of inputs) {
        const res = await callTrpc(proc, cred.headers, input);
        const where = `[seed ${SEED}] ${cred.kind} ${proc.type} ${proc.path} (${input.label}) → ${res.status} ${JSON.stringify(res.body)?.slice(0, 300)}`;
        if (res.status >= 500) failures.push(`${where}: 5xx`);
        else if (res.status < 300) ok++;
        else {
          const error = res.body?.error;
          if (
            typeof error?.message !== 'string' ||
            typeof error?.data?.code !== 'string' ||
            error.data.httpStatus !== res.status
          )
            failures.push(`${where}: not a tRPC error with its HTTP status`);
        }
      }
    }
  }
  expect(failures, `${failures.length} failures; rerun with FUZZ_SEED=${SEED}`).toEqual([]);
  // The fuzz reached the procedures themselves, not only the refusals.
  expect(ok).toBeGreaterThan(procedures.length);
}, 120_000);

/** Malformed or hostile MCP requests: JSON-RPC that is broken, batched, huge, or sent with the wrong headers. */
function mcpRequest(rng: Rng): { label: string; method: string; headers: Record<string, string>; body?: string } {
  const json = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
  };
  const hostile = rng.pick(HOSTILE);
  const cases = [
    () => ({ label: 'initialize', method: 'POST', headers: json, body: JSON.stringify(initialize) }),
    () => ({
      label: 'malformed JSON',
      method: 'POST',
      headers: json,
      body: rng.pick(['{"jsonrpc":', '[1,2', '\u0000', 'null x']),
    }),
    () => ({
      label: `id = ${asText(hostile).slice(0, 30)}`,
      method: 'POST',
      headers: json,
      body: JSON.stringify({ ...initialize, id: hostile }),
    }),
    () => ({
      label: `method = ${asText(hostile).slice(0, 30)}`,
      method: 'POST',
      headers: json,
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: hostile }),
    }),
    () => ({
      label: 'batch',
      method: 'POST',
      headers: json,
      body: JSON.stringify([initialize, { jsonrpc: '2.0', method: 'notifications/initialized' }]),
    }),
    () => ({
      label: 'tools/call without a session',
      method: 'POST',
      headers: json,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'echo', arguments: { text: hostile } },
      }),
    }),
    () => ({
      label: 'prototype keys',
      method: 'POST',
      headers: json,
      body: `{"__proto__":{"admin":true},"constructor":1,"jsonrpc":"2.0","id":4,"method":"ping"}`,
    }),
    () => ({
      label: 'text/plain body',
      method: 'POST',
      headers: { 'content-type': 'text/plain', accept: json.accept },
      body: JSON.stringify(initialize),
    }),
    () => ({
      label: 'no Accept',
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(initialize),
    }),
    () => ({ label: 'GET stream without a session', method: 'GET', headers: { accept: 'text/event-stream' } }),
    () => {
      const session = rng.pick(['nope', '\u00ff', 'x'.repeat(5000)]);
      return {
        label: `DELETE an unknown session ${JSON.stringify(session.slice(0, 8))}`,
        method: 'DELETE',
        headers: { 'mcp-session-id': session },
      };
    },
    () => ({
      label: 'bogus protocol version',
      method: 'POST',
      headers: { ...json, 'mcp-protocol-version': '1999-01-01' },
      body: JSON.stringify(initialize),
    }),
  ];
  return rng.pick(cases)();
}

it(`/mcp answers malformed and hostile requests from every credential without a 5xx, with an error body it can explain (seed ${SEED})`, async () => {
  const rng = prng(SEED + 1);
  const failures: string[] = [];
  // An organization of its own: the tRPC fuzz before may have suspended the other one or removed its members.
  const person = await createUser({ name: 'Assistant user' });
  const key = await createKey((await createOrg({ admin: person })).id, 'fuzz mcp');
  await registerMcpUrl(key, upstream.mcpUrl(key.id));
  const patToken = (await mintToken(person.token, key.id, { name: 'fuzz' })).token;
  const madeUp = issueSecret('svp_').secret; // well-formed, valid checksum, unknown
  const mcpCredentials = [
    ...credentials,
    { kind: 'made-up svp_ with a valid checksum', headers: bearer(madeUp) },
    { kind: 'malformed svp_', headers: bearer(`svp_${'A'.repeat(38)}`) },
    { kind: 'PAT svp_', headers: bearer(patToken) },
  ];
  const statuses = new Set<number>();
  for (const cred of mcpCredentials) {
    for (let i = 0; i < 12; i++) {
      const req = mcpRequest(rng);
      let res: Response;
      try {
        res = await fetch(`${hub.url}/mcp`, {
          method: req.method,
          headers: { ...req.headers, ...cred.headers },
          body: req.body,
        });
      } catch (err) {
        failures.push(
          `[seed ${SEED}] ${cred.kind} ${req.method} /mcp (${req.label}): no answer (${(err as Error).cause ?? err})`,
        );
        continue;
      }
      const text = await res.text();
      statuses.add(res.status);
      const where = `[seed ${SEED}] ${cred.kind} ${req.method} /mcp (${req.label}) → ${res.status} ${text.slice(0, 300)}`;
      if (res.status >= 500) failures.push(`${where}: 5xx`);
      if (res.status === 401 && !/^Bearer /.test(res.headers.get('www-authenticate') ?? ''))
        failures.push(`${where}: 401 without WWW-Authenticate: Bearer`);
      if (res.status >= 400 && res.status < 500) {
        let body: any = null;
        try {
          body = JSON.parse(text);
        } catch {
          /* checked below */
        }
        const hubError = typeof body?.code === 'string' && typeof body?.message === 'string';
        const rpcError =
          body?.jsonrpc === '2.0' && typeof body?.error?.code === 'number' && typeof body?.error?.message === 'string';
        if (!hubError && !rpcError)
          failures.push(`${where}: error body is neither {code, message} nor a JSON-RPC error`);
      }
      if (cred.kind !== 'PAT svp_' && res.status < 300)
        failures.push(`${where}: only a personal access token may pass`);
    }
  }
  expect(failures, `${failures.length} failures; rerun with FUZZ_SEED=${SEED}`).toEqual([]);
  // The token passed: the instance's own answers (2xx and its 4xx) were among them.
  expect([...statuses].some((s) => s < 300)).toBe(true);
}, 120_000);

/**
 * Core's OpenAPI document is clean for every client generator (issue 38): the document Core serves passes
 * Redocly's recommended rules and the project's (redocly.yaml: operationId, summary, tag and security on every
 * operation) with no error and no warning; its server is CORE_URL; every documented error is the one Error
 * schema; and what `security` says is what Core does (public operations answer without a credential, the
 * others refuse one that is missing). The Hub's documents: tests/repo/openapi-lint.test.ts.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { lintOpenApi } from '../../tests/fixtures/openapi-lint';
import { freshDatabase, startCore, type TestCore } from './helpers';

type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
};
type Doc = {
  info: { license?: unknown };
  servers: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { required?: string[] }> };
};

const CORE_URL = 'https://core.example.org';
let t: TestCore;
let db: Awaited<ReturnType<typeof freshDatabase>>;
let doc: Doc;

beforeAll(async () => {
  db = await freshDatabase();
  t = await startCore({ url: CORE_URL }, db);
  const res = await t.call('GET', '/api/v1/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
});
afterAll(async () => {
  await t?.stop();
  await db?.drop();
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op, at: `${method.toUpperCase()} ${path}` })),
  );

it('passes the linter with no error and no warning', async () => {
  const result = await lintOpenApi('core', doc);
  expect(result.problems).toEqual([]);
  expect([result.errors, result.warnings]).toEqual([0, 0]);
});

it('names CORE_URL as its server and Apache-2.0 as its license', () => {
  expect(doc.servers).toEqual([{ url: CORE_URL }]);
  expect(doc.info.license).toEqual({ name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' });
});

it('documents every error as the Error schema, which carries request_id', () => {
  expect(doc.components.schemas.Error!.required).toContain('request_id');
  let errors = 0;
  for (const { at, op } of operations()) {
    for (const [status, response] of Object.entries(op.responses)) {
      if (Number(status) < 400) continue;
      for (const media of Object.values(response.content ?? {})) {
        errors++;
        expect(media.schema, `${at} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
      }
    }
  }
  expect(errors).toBeGreaterThan(100);
  // The two answers of a failing Hub (issue 38: they lacked request_id).
  expect(doc.paths['/api/v1/settings/hub']!.put!.responses['502']).toBeDefined();
  expect(doc.paths['/api/v1/catalog/sync']!.post!.responses['502']).toBeDefined();
});

it('has one operationId per operation, verb + noun', () => {
  const ids = operations().map(({ op }) => op.operationId);
  expect(new Set(ids).size).toBe(ids.length);
  expect(doc.paths['/api/v1/tokens']!.post!.operationId).toBe('createMachineToken');
  expect(doc.paths['/api/v1/deployments']!.get!.operationId).toBe('listDeployments');
  expect(doc.paths['/api/v1/tokens/{id}/audit']!.get!.operationId).toBe('listMachineTokenAudit');
});

it('does what `security` says: public operations answer without a credential, the others refuse its absence', async () => {
  const publicOps: string[] = [];
  for (const { path, method, op, at } of operations()) {
    const res = await t.call(
      method.toUpperCase(),
      path.replace(/\{[^}]+\}/g, 'x'),
      method === 'get' ? {} : { body: {} },
    );
    if (op.security?.length === 0) {
      publicOps.push(at);
      expect(res.status, at).not.toBe(401);
      expect(res.status, at).toBeLessThan(500);
    } else {
      expect(op.security, at).toEqual([{ bearer: [] }]);
      expect([res.status, res.body?.code], at).toEqual([401, 'UNAUTHORIZED']);
    }
  }
  expect(publicOps.sort()).toEqual([
    'GET /api/v1/auth/config',
    'POST /api/v1/auth/login',
    'POST /api/v1/auth/logout',
    'POST /api/v1/auth/refresh',
  ]);
});

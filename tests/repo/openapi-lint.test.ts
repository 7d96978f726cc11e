/**
 * The Hub's OpenAPI documents are clean for every client generator (issue 38): the document the Hub serves and
 * the snapshot Core's client is generated from pass Redocly's recommended rules and the project's (redocly.yaml:
 * operationId, summary, tag, security on every operation) with no error and no warning; every documented error
 * is the one Error schema. Core's document: core/tests/openapi-lint.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GET } from '../../app/api/v1/openapi.json/route';
import { HUB_CLIENT_DIR, SNAPSHOT_SERVERS } from '../../scripts/hub-document';
import { api } from '../helpers';
import { lintOpenApi } from '../fixtures/openapi-lint';

type Operation = {
  operationId?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
};
type Doc = {
  info: { license?: unknown };
  servers?: unknown[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, { required?: string[]; example?: Record<string, unknown> }> };
};

const served = async () => (await GET().json()) as Doc;
const snapshot = () => JSON.parse(fs.readFileSync(path.join(HUB_CLIENT_DIR, 'hub-openapi.json'), 'utf8')) as Doc;
const operations = (doc: Doc) =>
  Object.entries(doc.paths).flatMap(([p, item]) => Object.entries(item).map(([m, op]) => ({ at: `${m} ${p}`, op })));

describe.each([
  ['served', served],
  ['snapshot', async () => snapshot()],
])('the Hub’s %s document', (name, load) => {
  it('passes the linter with no error and no warning', async () => {
    const result = await lintOpenApi(`hub-${name}`, await load());
    expect(result.problems).toEqual([]);
    expect([result.errors, result.warnings]).toEqual([0, 0]);
  });

  it('documents every error as the Error schema, which carries request_id, and names the license', async () => {
    const doc = await load();
    expect(doc.info.license).toEqual({ name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' });
    expect(doc.components.schemas.Error!.required).toContain('request_id');
    expect(Object.keys(doc.components.schemas).filter((n) => n.startsWith('error.'))).toEqual([]);
    let errors = 0;
    for (const { at, op } of operations(doc)) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        for (const media of Object.values(response.content ?? {})) {
          errors++;
          expect(media.schema, `${at} ${status}`).toEqual({ $ref: '#/components/schemas/Error' });
        }
      }
    }
    expect(errors).toBeGreaterThan(100);
  });

  it('has one operationId per operation, verb + noun, and the catalog’s credential is optional', async () => {
    const doc = await load();
    const ids = operations(doc).map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(doc.paths['/catalog/templates']!.get!.operationId).toBe('listTemplates');
    expect(doc.paths['/admin/templates']!.get!.operationId).toBe('listAllTemplates');
    expect(doc.paths['/account/tokens']!.post!.operationId).toBe('createPersonalAccessToken');
    expect(doc.paths['/catalog/templates']!.get!.security).toEqual([{}, { bearer: [] }]);
    expect(doc.paths['/account/profile']!.get!.security).toEqual([{ bearer: [] }]);
  });
});

it('serves its configured public URL (HUB_URL) as the server; the snapshot names it as a variable', async () => {
  expect((await served()).servers).toEqual([{ url: 'http://hub.test/api/v1' }]);
  expect(snapshot().servers).toEqual(SNAPSHOT_SERVERS);
});

it('the linter does fail a document without operationId, summary or security', async () => {
  const doc = structuredClone(await served());
  const op = doc.paths['/account/profile']!.get! as Partial<Operation> & { summary?: string };
  delete op.operationId;
  delete op.summary;
  doc.paths['/account/profile']!.get!.security = [{ nobody: [] }];
  const result = await lintOpenApi('hub-broken', doc);
  const rules = result.problems.map((p) => p.split(' ')[1]);
  expect(rules).toEqual(expect.arrayContaining(['operation-operationId', 'operation-summary', 'security-defined']));
  expect(result.errors).toBeGreaterThanOrEqual(3);
});

it('does what `security` says: the catalog answers without a credential, every other operation refuses its absence', async () => {
  const optional: string[] = [];
  for (const { at, op } of operations(await served())) {
    const [method, p] = at.split(' ') as [string, string];
    const res = await api(p.replace(/\{[^}]+\}/g, 'x'), {
      method: method.toUpperCase(),
      body: method === 'get' ? undefined : {},
    });
    if (op.security?.some((s) => Object.keys(s).length === 0)) {
      optional.push(at);
      expect(res.status, at).not.toBe(401);
      expect(res.status, at).toBeLessThan(500);
    } else {
      expect(op.security, at).toEqual([{ bearer: [] }]);
      expect([res.status, (res.body as { code?: string })?.code], at).toEqual([401, 'UNAUTHORIZED']);
    }
  }
  expect(optional.sort()).toEqual([
    'get /catalog/categories',
    'get /catalog/templates',
    'get /catalog/templates/updates',
    'get /catalog/templates/{slug}',
  ]);
});

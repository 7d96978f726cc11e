/**
 * Core's generated Hub client matches the Hub: the committed OpenAPI snapshot equals the document the Hub
 * serves now, and the committed types are exactly what openapi-typescript makes of it. Together with the
 * typecheck (core/src/hub/client.ts compiles against those types), this is "the generated client compiles
 * against the current Hub document". On failure: `npm run hub-client`, then fix Core where the typecheck says.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { HUB_CLIENT_DIR, hubDocumentForCore, hubTypesFor } from '../../scripts/hub-document';

const committedDoc = JSON.parse(fs.readFileSync(path.join(HUB_CLIENT_DIR, 'hub-openapi.json'), 'utf8'));

it('the committed Hub OpenAPI snapshot is the Hub’s current document (else: npm run hub-client)', () => {
  expect(committedDoc).toEqual(hubDocumentForCore());
});

it('the committed Hub client types are generated from that document (else: npm run hub-client)', async () => {
  expect(fs.readFileSync(path.join(HUB_CLIENT_DIR, 'hub-api.d.ts'), 'utf8')).toBe(await hubTypesFor(committedDoc));
});

it('the document has what Core calls', () => {
  const paths = committedDoc.paths as Record<string, Record<string, unknown>>;
  for (const [p, method] of [
    ['/instance-info', 'get'],
    ['/instance-info', 'put'],
    ['/dns', 'put'],
    ['/catalog/templates', 'get'],
    ['/catalog/templates/updates', 'get'],
  ] as const) {
    expect(paths[p]?.[method], `${method.toUpperCase()} ${p}`).toBeDefined();
  }
});

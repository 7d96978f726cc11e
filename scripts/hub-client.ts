/**
 * Refreshes Core's Hub client from the Hub's OpenAPI document (`npm run hub-client`):
 *   core/src/hub/hub-openapi.json  the document, with the deployment-specific `servers` removed
 *   core/src/hub/hub-api.d.ts      its types (openapi-typescript), used by openapi-fetch in core/src/hub/client.ts
 * Core never imports Hub code; this Hub-side script is the one bridge, and tests/hub-client-drift.test.ts
 * fails when the committed document no longer equals the Hub's.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { hubDocumentForCore } from '../tests/fixtures/hub-document';

const out = path.resolve(import.meta.dirname, '../core/src/hub');
const docPath = path.join(out, 'hub-openapi.json');
fs.writeFileSync(docPath, JSON.stringify(hubDocumentForCore(), null, 2) + '\n');
const bin = path.resolve(import.meta.dirname, '../core/node_modules/.bin/openapi-typescript');
execFileSync(bin, [docPath, '-o', path.join(out, 'hub-api.d.ts')], { stdio: 'inherit' });

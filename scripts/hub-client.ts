/**
 * `npm run hub-client`: refreshes Core's Hub client from the Hub's OpenAPI document — the snapshot
 * core/src/hub/hub-openapi.json and its types core/src/hub/hub-api.d.ts (used by openapi-fetch in
 * core/src/hub/client.ts). Core never imports Hub code; this Hub-side script is the one bridge, and
 * tests/repo/hub-client-drift.test.ts fails when the committed files no longer match the Hub.
 */
import fs from 'node:fs';
import path from 'node:path';
import { HUB_CLIENT_DIR, hubDocumentForCore, hubTypesFor } from './hub-document';

const doc = hubDocumentForCore();
fs.writeFileSync(path.join(HUB_CLIENT_DIR, 'hub-openapi.json'), JSON.stringify(doc, null, 2) + '\n');
fs.writeFileSync(path.join(HUB_CLIENT_DIR, 'hub-api.d.ts'), await hubTypesFor(doc));
console.log(`wrote ${HUB_CLIENT_DIR}/hub-openapi.json and hub-api.d.ts`);

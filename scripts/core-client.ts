/**
 * `npm run core-client`: refreshes the types of Core's generated client (core/client/core-api.d.ts, used with
 * openapi-fetch by core/client/machine-token-audit.ts) from the document Core serves.
 * core/tests/core-client.test.ts fails when the committed types no longer match Core.
 */
import fs from 'node:fs';
import path from 'node:path';
import { CORE_CLIENT_DIR, coreDocument, coreTypesFor } from './core-document';

fs.writeFileSync(path.join(CORE_CLIENT_DIR, 'core-api.d.ts'), await coreTypesFor(await coreDocument()));
console.log(`wrote ${CORE_CLIENT_DIR}/core-api.d.ts`);
process.exit(0);

#!/usr/bin/env node
/**
 * `npm run core -- <command>`: Core's command line as compiled JavaScript (core/dist/cli.mjs, bundled from
 * core/src/cli.ts by scripts/build-server.mjs), compiled first when the bundle is missing or older than its
 * sources. No TypeScript transform at start-up; `npm run core:dev` runs the source through tsx instead.
 */
import { ensureBuilt } from './build-server.mjs';

await import(await ensureBuilt('core'));

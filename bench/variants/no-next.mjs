/**
 * `--import` for the bench's `no-next` variant (bench/variants.ts): the production bundle's `next` resolves to a stub
 * that prepares nothing and answers every page 404, so the REST edge runs without Next.js in its process.
 * A measurement device only: never part of a served process.
 */
import { register } from 'node:module';

register(new URL('./no-next-hooks.mjs', import.meta.url));

/**
 * `--import` for the bench's `next-worker` variant (bench/variants.ts): a prototype of serving pages from a worker
 * thread. The production bundle's `next` resolves to next-worker-stub.mjs, which prepares Next.js in a worker thread
 * (next-in-worker.mjs, its own V8 isolate) and proxies pages to it; REST, /mcp and the probes stay on the main thread.
 * On PostgreSQL only: on the embedded database the worker's Next.js fails to start (process.umask() is refused in a
 * worker thread). A measurement device only: never part of a served process.
 */
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

if (isMainThread)
  register(new URL('./hooks.mjs', import.meta.url), {
    data: { stub: new URL('./next-worker-stub.mjs', import.meta.url).href },
  });

/**
 * `npm run bench:core`: what each kind of credential costs (auth.ts); with `-- --runtime`, what the reconciler
 * costs on a real container engine (runtime.ts). The other arguments go to the one chosen.
 */
const runtime = process.argv.includes('--runtime');
if (runtime) process.argv.splice(process.argv.indexOf('--runtime'), 1);
await import(runtime ? './runtime' : './auth');

export {};

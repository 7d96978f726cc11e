#!/usr/bin/env node
/**
 * `npm start`: build once if there is no production build, then serve the Hub (server/http/serve.ts:
 * Next.js, with REST /api/v1 and /mcp served straight from their handlers).
 * Migrations are applied by the server when it first opens the database.
 *
 * Sign-in: when no OpenID Connect provider is configured (OIDC_ISSUER, OIDC_CLIENT_ID and
 * OIDC_CLIENT_SECRET all unset), this also runs the development OpenID provider that ships with the
 * Hub (server/auth/dev-oidc-provider.mjs) on 127.0.0.1, port PORT+1 (HUB_DEV_OIDC_PORT), so that a
 * person can sign in with any email; the first user to sign in becomes superadmin. Never for production.
 */
import { spawnSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { serveCommand } from './serve-command.mjs';

const root = new URL('..', import.meta.url).pathname;
const nextBin = `${root}node_modules/next/dist/bin/next`;

// NODE_ENV=production, as the operator set it: refuse what is only safe on a developer's machine.
if (process.env.NODE_ENV === 'production') {
  const blank = (name) => (process.env[name] ?? '').trim() === '';
  if (blank('HUB_SECRET')) {
    console.error(
      '[hub] NODE_ENV=production: refusing to start without HUB_SECRET (the key that encrypts stored secrets; see README, Configuration).',
    );
    process.exit(1);
  }
  if (['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'].some(blank)) {
    console.error(
      '[hub] NODE_ENV=production: the development OpenID provider never runs in production; set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET.',
    );
    process.exit(1);
  }
}

if (!existsSync(`${root}.next/BUILD_ID`)) {
  console.log('[hub] no production build yet: running next build (once)…');
  const build = spawnSync(process.execPath, [nextBin, 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const port = process.env.PORT ?? '3000';
const childEnv = { ...process.env };
let devProvider;

const oidcVars = ['OIDC_ISSUER', 'OIDC_CLIENT_ID', 'OIDC_CLIENT_SECRET'];
const setVars = oidcVars.filter((name) => (process.env[name] ?? '').trim() !== '');
if (setVars.length === 0) {
  const { startDevOidcProvider } = await import('../server/auth/dev-oidc-provider.mjs');
  const callbackPath = '/api/auth/callback/oidc';
  const hubUrl = (process.env.HUB_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  // Next.js turns loopback addresses into "localhost" in request URLs: that is the callback a local Hub sends.
  const redirectUris = [...new Set([hubUrl, `http://localhost:${port}`].map((u) => u + callbackPath))];
  const devPort = Number(process.env.HUB_DEV_OIDC_PORT ?? Number(port) + 1);
  try {
    devProvider = await startDevOidcProvider({ port: devPort, redirectUris });
  } catch (err) {
    console.error(
      `[hub] the development OpenID provider could not listen on 127.0.0.1:${devPort} (${err.code ?? err.message}); ` +
        'set HUB_DEV_OIDC_PORT, or configure OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET',
    );
    process.exit(1);
  }
  Object.assign(childEnv, devProvider.env);
  console.log('[hub] no OIDC provider configured: sign in with any email through the development provider.');
  console.log('[hub] for real use set OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET (see README).');
} else if (setVars.length < oidcVars.length) {
  console.warn(
    `[hub] OIDC is partly configured: set ${oidcVars.filter((n) => !setVars.includes(n)).join(', ')} too; sign-in is disabled until then.`,
  );
}

// The production server: Next.js, with the REST API and /mcp served directly (server/http/serve.ts).
const [command, args] = serveCommand(root);
const server = spawn(command, args, {
  cwd: root,
  stdio: 'inherit',
  env: { NODE_ENV: 'production', ...childEnv, PORT: port },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', async (code, signal) => {
  await devProvider?.close();
  process.exit(code ?? (signal ? 1 : 0));
});

/**
 * `npm start` with NODE_ENV=production refuses what is only safe on a developer's machine: no HUB_SECRET,
 * and the development OpenID provider (which lets anyone sign in) when no real provider is configured.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

function start(env: Record<string, string>) {
  const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HUB_DATA_DIR: 'memory://', PORT: '1' };
  const childEnv = { ...base, ...env } as unknown as NodeJS.ProcessEnv;
  return spawnSync(process.execPath, [path.join(process.cwd(), 'scripts/start.mjs')], {
    env: childEnv,
    encoding: 'utf8',
    timeout: 20_000,
  });
}

const OIDC = { OIDC_ISSUER: 'https://id.example.test', OIDC_CLIENT_ID: 'hub', OIDC_CLIENT_SECRET: 'x' };

describe('production refusals', () => {
  it('refuses to start without HUB_SECRET', () => {
    const r = start({ NODE_ENV: 'production', ...OIDC });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('refusing to start without HUB_SECRET');
  });

  it('never runs the development OpenID provider', () => {
    const r = start({ NODE_ENV: 'production', HUB_SECRET: 'a-long-production-secret' });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('the development OpenID provider never runs in production');
    expect(r.stdout).not.toContain('development provider');
  });
});

/**
 * Photographs Core's deployment pages on a real container engine for docs/screenshots (issue 33):
 *   npx tsx scripts/core-deployment-screenshots.ts [<dir>]      (default docs/screenshots; needs podman and chromium)
 * A podman service of its own (core/tests/engine/fixture.ts), a Hub with the demo catalog, Core from source on it.
 * No registry answers here, so code-server's template runs on an image built locally from the engine tests' busybox
 * image (printing a line every two seconds, for the logs), and NGINX's fails its pull: both states are shown, at
 * 1280 and 390 px (the running page in the dark scheme too), for an admin and a readonly user; each must pass axe
 * (WCAG 2.1 AA, no serious or critical violation) and not scroll sideways. Everything it creates is removed at the end.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Page } from '@playwright/test';
import { APP_IMAGE_1, ensureTestImages, removeByLabel, startEngine } from '../core/tests/engine/fixture';
import { hubStore, startHub } from '../tests/loop/processes';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.resolve(process.argv[2] ?? path.join(ROOT, 'docs/screenshots'));
const IMAGE = 'docker.io/codercom/code-server:4.96.4';
const TEMP_ADMIN = { username: 'setup-admin', password: 'screenshot-setup-password' };
const ADMIN = { email: 'ada@example.com', password: 'ada-admin-password', role: 'admin', name: 'Ada Admin' };
const READER = { email: 'rita@example.com', password: 'rita-readonly-password', role: 'readonly', name: 'Rita Reader' };

async function call<T>(base: string, p: string, token: string, method = 'GET', body?: unknown): Promise<T> {
  const res = await fetch(`${base}/api/v1${p}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${text}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

/** An image of its own: the test image's files without its labels (the engine tests sweep images by label). */
function buildImage() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-shots-image-'));
  const loop =
    "/start & echo 'code-server 4.96.4 (test image)'; echo 'HTTP server listening on http://0.0.0.0:8080/'; i=0; " +
    'while true; do i=$((i+1)); echo "[$(date -u +%H:%M:%S)] heartbeat $i: 1 session"; sleep 2; done';
  fs.writeFileSync(
    path.join(dir, 'Containerfile'),
    `FROM scratch\nCOPY --from=${APP_IMAGE_1} / /\nENV PATH=/bin\nEXPOSE 8080/tcp\nCMD ${JSON.stringify(['/bin/sh', '-c', loop])}\n`,
  );
  const built = spawnSync('podman', ['--runtime', 'runc', 'build', '-q', '-t', IMAGE, dir], { encoding: 'utf8' });
  fs.rmSync(dir, { recursive: true, force: true });
  if (built.status !== 0) throw new Error(`podman build failed: ${built.stderr}`);
}

async function photograph(page: Page, name: string, schemes: ('light' | 'dark')[] = ['light']) {
  for (const scheme of schemes) {
    await page.emulateMedia({ colorScheme: scheme });
    for (const [width, height, suffix] of [
      [1280, 900, ''],
      [390, 844, '-390'],
    ] as const) {
      await page.setViewportSize({ width, height });
      await page.waitForTimeout(300);
      const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      if (sideways > 0) throw new Error(`${name} scrolls sideways by ${sideways} px at ${width} px`);
      // What the e2e suite checks, on the states it cannot reach without an engine (running, live logs, failed).
      const { violations } = await new AxeBuilder({ page })
        .withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'])
        .analyze();
      const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      if (bad.length) throw new Error(`${name} at ${width} px (${scheme}): ${bad.map((v) => v.id).join(', ')}`);
      const file = `${name}${suffix}${scheme === 'dark' ? '-dark' : ''}.png`;
      await page.screenshot({ path: path.join(OUT, file), fullPage: true });
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await page.setViewportSize({ width: 1280, height: 900 });
}

async function signIn(browser: Browser, coreUrl: string, who: { email: string; password: string }) {
  // A context of its own: axe needs one (browser.newPage's is not usable by it).
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  await page.goto(`${coreUrl}/login`);
  await page.getByLabel('Email or username').fill(who.email);
  await page.getByLabel('Password').fill(who.password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.getByRole('heading', { name: 'Overview' }).waitFor();
  return page;
}

async function main() {
  fs.mkdirSync(OUT, { recursive: true });
  const engine = await startEngine('podman');
  const store = await hubStore();
  const hub = await startHub(store, { users: ['owner@hub.test:user'], seed: true });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'core-shots-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const coreUrl = `http://127.0.0.1:${port}`;
  const core = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['core/src/cli.ts', 'serve'], {
    cwd: ROOT,
    detached: true,
    stdio: 'ignore',
    env: {
      ...process.env,
      CORE_DATABASE_URL: '',
      CORE_DATA_DIR: dataDir,
      CORE_PORT: String(port),
      CORE_URL: coreUrl,
      SVC_TEMP_ADMIN_USERNAME: TEMP_ADMIN.username,
      SVC_TEMP_ADMIN_PASSWORD: TEMP_ADMIN.password,
      CORE_RUNTIME: 'docker',
      DOCKER_HOST: engine.dockerHost,
      CORE_CONTAINER_ULIMITS: process.env.CORE_CONTAINER_ULIMITS || 'nofile=1024:1024,nproc=1024:1024',
    },
  });
  let token = '';
  try {
    await ensureTestImages(engine.docker);
    buildImage();
    const owner = hub.jwts.get('owner@hub.test')!;
    await call(hub.url, '/account/organizations', owner, 'POST', { name: 'Shots', slug: 'shots' });
    const { apiKey } = await call<{ apiKey: { key: string } }>(hub.url, '/account/api-keys', owner, 'POST', {
      name: 'screenshots',
    });
    for (
      let i = 0;
      !(await fetch(`${coreUrl}/readyz`).then(
        (r) => r.ok,
        () => false,
      ));
      i++
    ) {
      if (i > 240) throw new Error('Core did not become ready');
      await new Promise((r) => setTimeout(r, 500));
    }
    token = (await call<{ access_token: string }>(coreUrl, '/auth/login', '', 'POST', TEMP_ADMIN)).access_token;
    for (const u of [ADMIN, READER]) await call(coreUrl, '/users', token, 'POST', u);
    await call(coreUrl, '/settings/hub', token, 'PUT', { hub_url: hub.url, instance_key: apiKey.key });
    await call(coreUrl, '/catalog/sync', token, 'POST');
    await call(coreUrl, '/secrets/ide.password', token, 'PUT', { value: 'screenshot-ide-password' });
    const ide = await call<{ id: string }>(coreUrl, '/deployments', token, 'POST', {
      name: 'team-ide',
      template_slug: 'code-server',
      env: { PASSWORD: { secret: 'ide.password' } },
      host_ports: [{ container_port: 8080, protocol: 'tcp', host_port: port + 1 }],
    });
    const web = await call<{ id: string }>(coreUrl, '/deployments', token, 'POST', {
      name: 'demo-web',
      template_slug: 'nginx',
    });

    const browser = await chromium.launch({
      executablePath: process.env.CORE_E2E_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    try {
      const admin = await signIn(browser, coreUrl, ADMIN);
      await admin.goto(`${coreUrl}/deployments/${ide.id}`);
      await admin.locator('.heading-row .state[data-state="running"]').waitFor({ timeout: 90_000 });
      await admin.locator('pre.logs', { hasText: 'heartbeat 3' }).waitFor({ timeout: 30_000 });
      await photograph(admin, 'core-deployment', ['light', 'dark']);
      await admin.goto(`${coreUrl}/deployments/${web.id}`);
      await admin.locator('.heading-row .state[data-state="failed"]').waitFor({ timeout: 120_000 });
      await photograph(admin, 'core-deployment-failed');
      await admin.goto(`${coreUrl}/deployments`);
      await admin.locator('.state[data-state="running"]').waitFor();
      await photograph(admin, 'core-deployments');
      const reader = await signIn(browser, coreUrl, READER);
      await reader.goto(`${coreUrl}/deployments/${ide.id}`);
      await reader.locator('.heading-row .state[data-state="running"]').waitFor();
      await photograph(reader, 'core-deployment-readonly');
    } finally {
      await browser.close();
    }
    console.log(`screenshots in ${OUT}`);
  } finally {
    const ids: string[] = [];
    if (token) {
      const { deployments } = await call<{ deployments: { id: string }[] }>(coreUrl, '/deployments', token);
      for (const d of deployments) {
        ids.push(d.id);
        await call(coreUrl, `/deployments/${d.id}?volumes=true`, token, 'DELETE').catch(() => {});
      }
    }
    try {
      process.kill(-core.pid!, 'SIGTERM');
    } catch {
      /* gone */
    }
    // Whatever Core had not removed yet: only this run's deployments' containers and volumes.
    for (const id of ids) await removeByLabel(engine.docker, { 'io.fleet.core.deployment': id });
    await hub.stop();
    await store.drop();
    await engine.docker
      .getImage(IMAGE)
      .remove()
      .catch(() => {});
    await engine.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

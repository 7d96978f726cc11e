/**
 * The reconciler across Core's own life and the engine's (issue 33): a restarted Core adopts what runs (no
 * duplicate); two Core processes on one PostgreSQL make one container; a rotated secret shows needs_restart and a
 * restart picks it up; a synced template version shows update_available and apply-update deploys it; the engine
 * stopped → every deployment unknown with since, logs and start 503 naming the engine, /readyz says so, Core's API
 * stays up, and the loop converges when the engine is back.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, PG_SERVER } from '../helpers';
import { APP_IMAGE_2, readEnv, sharedEngine, startEngine, waitUntilAnswers, type TestEngine } from './fixture';
import {
  appTemplate,
  cleanUp,
  containersOf,
  coreOnEngine,
  publishedUrl,
  syncCatalog,
  waitForDeployment,
} from './coreOnEngine';

const running = (d: any) => d.observed.state === 'running' && d.observed.ports.length > 0;
/** Two Core processes need one database server: the suite's, else the machine's (CI and these machines have one). */
const SERVER = PG_SERVER ?? 'postgres://postgres@127.0.0.1:5432/postgres';

let engine: TestEngine;
const instances = new Set<string>();
const stops: (() => Promise<void>)[] = [];

beforeAll(async () => {
  engine = await sharedEngine();
});

afterAll(async () => {
  for (const stop of stops.reverse()) await stop().catch(() => {});
  for (const i of instances) await cleanUp(engine, i);
  await engine?.close();
});

async function core(database: { databaseUrl: string | null }, secret: string, runtime = {}) {
  const c = await coreOnEngine(engine, { database, config: { secret }, runtime });
  instances.add(c.instance);
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await c.t.stop();
  };
  stops.push(stop);
  return { ...c, stop };
}

describe('Core on one PostgreSQL', () => {
  it('adopts what runs after a restart, without a duplicate', async () => {
    const db = await freshDatabase(SERVER);
    stops.push(db.drop);
    const secret = randomBytes(16).toString('hex');
    const a = await core(db, secret);
    await syncCatalog(a.t, [appTemplate('app')]);
    const created = await a.t.call('POST', '/api/v1/deployments', {
      token: a.admin,
      body: { name: 'adopted', template_slug: 'app' },
    });
    expect(created.status).toBe(201);
    const before = await waitForDeployment(a.t, a.admin, created.body.id, running, 'running');
    const [container] = await containersOf(engine, created.body.id);
    await a.stop();

    const b = await core(db, secret);
    expect(b.instance).toBe(a.instance);
    await b.t.core.reconciler.passNow();
    const after = await containersOf(engine, created.body.id);
    expect(after.map((c) => c.Id)).toEqual([container!.Id]);
    const seen = await waitForDeployment(b.t, b.admin, created.body.id, running, 'still running');
    expect(seen.observed.since).toBe(before.observed.since);
    await waitUntilAnswers(publishedUrl(seen));
    await b.stop();
  });

  it('two Core processes make one container per deployment; a write through either converges at once', async () => {
    const db = await freshDatabase(SERVER);
    stops.push(db.drop);
    const secret = randomBytes(16).toString('hex');
    // No safety-net pass within the test: writes through the Core without the lock reach the other by NOTIFY.
    const a = await core(db, secret, { reconcileIntervalSeconds: 600 });
    const b = await core(db, secret, { reconcileIntervalSeconds: 600 });
    await syncCatalog(a.t, [appTemplate('app')]);
    const ids: string[] = [];
    for (const [i, side] of [a, b, a, b].entries()) {
      const res = await side.t.call('POST', '/api/v1/deployments', {
        token: side.admin,
        body: { name: `twin-${i}`, template_slug: 'app' },
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    for (const id of ids) await waitForDeployment(b.t, b.admin, id, running, `${id} running (seen by the other Core)`);
    await Promise.all([a.t.core.reconciler.passNow(), b.t.core.reconciler.passNow()]);
    for (const id of ids) expect(await containersOf(engine, id)).toHaveLength(1);
    await a.stop();
    await b.stop();
  });
});

describe('secrets and template versions', () => {
  let c: Awaited<ReturnType<typeof core>>;
  let id: string;

  beforeAll(async () => {
    c = await core({ databaseUrl: null }, randomBytes(16).toString('hex'));
    await syncCatalog(c.t, [appTemplate('app')]);
    await c.t.call('PUT', '/api/v1/secrets/db.password', { token: c.admin, body: { value: 'first-value-1a2b' } });
    const created = await c.t.call('POST', '/api/v1/deployments', {
      token: c.admin,
      body: { name: 'rotating', template_slug: 'app', env: { DB_PASSWORD: { secret: 'db.password' } } },
    });
    id = created.body.id;
    await waitForDeployment(c.t, c.admin, id, running, 'running');
  });

  it('a rotated secret shows needs_restart, and a restart picks it up', async () => {
    const [before] = await containersOf(engine, id);
    await c.t.call('PUT', '/api/v1/secrets/db.password', { token: c.admin, body: { value: 'second-value-3c4d' } });
    await c.t.core.reconciler.passNow();
    const flagged = await waitForDeployment(c.t, c.admin, id, (d) => d.observed.needs_restart, 'needs restart');
    // Not silently changed: the same container runs with the old value until the restart.
    expect((await containersOf(engine, id)).map((x) => x.Id)).toEqual([before!.Id]);
    expect((await readEnv(publishedUrl(flagged))).DB_PASSWORD).toBe('first-value-1a2b');

    const restarted = await c.t.call('POST', `/api/v1/deployments/${id}/restart`, { token: c.admin });
    expect(restarted.status).toBe(200);
    const d = await waitForDeployment(c.t, c.admin, id, (x) => running(x) && !x.observed.needs_restart, 'restarted');
    await waitUntilAnswers(publishedUrl(d));
    expect((await readEnv(publishedUrl(d))).DB_PASSWORD).toBe('second-value-3c4d');
    expect(JSON.stringify(d)).not.toContain('second-value-3c4d');
  });

  it('a newer synced template shows update_available; apply-update deploys it', async () => {
    const [before] = await containersOf(engine, id);
    const current = (await c.t.call('GET', `/api/v1/deployments/${id}`, { token: c.admin })).body;
    await syncCatalog(c.t, [
      appTemplate('app', {
        id: current.template_id,
        version: '2',
        updated_at: '2026-11-20T00:00:00.000Z',
        image_name: APP_IMAGE_2.split(':')[0],
        image_tag: APP_IMAGE_2.split(':')[1],
      }),
    ]);
    await c.t.core.reconciler.passNow();
    const shown = (await c.t.call('GET', `/api/v1/deployments/${id}`, { token: c.admin })).body;
    expect(shown.observed.update_available).toBe(true);
    expect(shown.template_version).toBe('1');
    // A sync never changes what runs.
    expect((await containersOf(engine, id)).map((x) => x.Id)).toEqual([before!.Id]);

    const applied = await c.t.call('POST', `/api/v1/deployments/${id}/apply-update`, { token: c.admin });
    expect(applied.status).toBe(200);
    expect(applied.body.template_version).toBe('2');
    expect(applied.body.observed.update_available).toBe(false);
    const d = await waitForDeployment(c.t, c.admin, id, (x) => running(x) && x.observed.image.endsWith(':2'), 'v2');
    expect(await waitUntilAnswers(publishedUrl(d))).toContain('core-test-app 2');
    const activity = await c.t.call('GET', `/api/v1/activity?target_type=deployment&target_id=${id}`, {
      token: c.admin,
    });
    expect(activity.body.entries.map((e: any) => e.action)).toContain('deployment.apply_update');
  });
});

describe('the engine stopped', () => {
  it('reads unknown, answers 503 naming the engine, and converges when it is back', async () => {
    const own = await startEngine();
    stops.push(() => own.close());
    const c = await coreOnEngine(own, { config: { secret: randomBytes(16).toString('hex') } });
    instances.add(c.instance);
    stops.push(() => c.t.stop());
    await syncCatalog(c.t, [appTemplate('app')]);
    const created = await c.t.call('POST', '/api/v1/deployments', {
      token: c.admin,
      body: { name: 'outage', template_slug: 'app' },
    });
    const id = created.body.id;
    await waitForDeployment(c.t, c.admin, id, running, 'running');

    await own.stop();
    await c.t.core.reconciler.passNow();
    const d = (await c.t.call('GET', `/api/v1/deployments/${id}`, { token: c.admin })).body;
    expect(d.desired_state).toBe('running');
    expect(d.observed.state).toBe('unknown');
    expect(d.observed.reason).toContain(own.dockerHost);
    expect(Date.parse(d.observed.since)).toBeGreaterThan(Date.now() - 60_000);
    const logs = await c.t.call('GET', `/api/v1/deployments/${id}/logs`, { token: c.admin });
    expect(logs.status).toBe(503);
    expect(logs.body.message).toContain(own.dockerHost);
    expect((await c.t.call('POST', `/api/v1/deployments/${id}/stop`, { token: c.admin })).status).toBe(503);
    const ready = await c.t.call('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body.engine).toMatchObject({ state: 'down' });
    // Desired state writes that need no engine still work (Core's API stays up).
    expect((await c.t.call('GET', '/api/v1/deployments', { token: c.admin })).status).toBe(200);

    await own.start();
    await c.t.core.reconciler.passNow();
    const back = await waitForDeployment(c.t, c.admin, id, running, 'running again');
    await waitUntilAnswers(publishedUrl(back));
    expect(await containersOf(own, id)).toHaveLength(1);
    expect(c.t.logs.join('\n')).toMatch(/container engine unreachable/);
  });
});

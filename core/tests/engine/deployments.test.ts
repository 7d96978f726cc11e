/**
 * Core runs its deployments on a real engine (issue 33, "Done when"): create → running and answering on its
 * published port, with the env literal and the bound secret in the process and a secret_ref file of mode 0400;
 * update → replaced; stop/start/restart; removed by hand → restored within one pass; a crash is one entry, a stop
 * or removal by hand none (Podman reports no stop before such an exit), nor hides one; delete keeps the volume
 * unless asked; missing image and port in use → failed naming them; bad quantity and unmet node_selector;
 * readonly sees status but not logs; the secret's value in no answer and nowhere in Core's log.
 */
import net from 'node:net';
import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LABEL } from '../../src/domain/containerSpec';
import { localUser, type TestCore } from '../helpers';
import {
  APP_IMAGE_2,
  freePort,
  readEnv,
  readSecrets,
  sharedEngine,
  waitFor,
  waitUntilAnswers,
  type TestEngine,
} from './fixture';
import {
  appTemplate,
  cleanUp,
  containersOf,
  coreOnEngine,
  publishedUrl,
  syncCatalog,
  waitForDeployment,
} from './coreOnEngine';

const SECRET = 'engine-secret-value-5c2e81';
const FILE_SECRET = 'engine-file-secret-9d41aa';

let engine: TestEngine;
let t: TestCore;
let admin: string;
let instance: string;
const answers: string[] = [];

/** Every answer of the test is kept: none may hold a secret value. */
async function call(method: string, path: string, opts: { token?: string; body?: unknown } = {}) {
  const res = await t.call(method, path, { token: admin, ...opts });
  answers.push(JSON.stringify(res.body ?? ''));
  return res;
}

const running = (d: any) => d.observed.state === 'running' && d.observed.ports.length > 0;

/**
 * A stop by hand. Podman cleans up after the exit: when Core has already started the container again, it answers
 * 500 "refusing to clean up" — the stop did happen.
 */
async function stopByHand(id: string) {
  await engine.docker
    .getContainer(id)
    .stop({ t: 1 })
    .catch((err: Error) => {
      if (!/refusing to clean up/.test(err.message)) throw err;
    });
}

beforeAll(async () => {
  engine = await sharedEngine();
  ({ t, admin, instance } = await coreOnEngine(engine));
  await syncCatalog(t, [
    appTemplate('app'),
    appTemplate('app-v2', { image_name: APP_IMAGE_2.split(':')[0], image_tag: APP_IMAGE_2.split(':')[1] }),
    appTemplate('missing-image', { image_name: 'localhost/core-test-absent', image_tag: 'nope' }),
    appTemplate('bad-quantity', { memory_request: '64 megabytes' }),
    appTemplate('gpu-zone', { node_selector: { zone: 'gpu-east' } }),
    // Doubles a string until the memory limit kills it: the engine restarts it, over and over.
    appTemplate('memory-hog', { memory_request: '16Mi', command: ['sh', '-c', 'x=a; while :; do x=$x$x; done'] }),
    // Ignores SIGTERM (as many a PID 1 does): a stop ends it with SIGKILL, exit 137. /cgi-bin/exit still works.
    appTemplate('deaf', {
      command: [
        'sh',
        '-c',
        'trap "" TERM; trap \'exit $(cat /tmp/exit-code)\' USR1; httpd -f -p 8080 -h /www & wait $!',
      ],
    }),
  ]);
  expect((await call('PUT', '/api/v1/secrets/db.password', { body: { value: SECRET } })).status).toBe(200);
  expect((await call('PUT', '/api/v1/secrets/tls-key', { body: { value: FILE_SECRET } })).status).toBe(200);
}, 120_000);

afterAll(async () => {
  if (engine && instance) await cleanUp(engine, instance);
  await t?.stop();
  await engine?.close();
});

let app: any;
let hostPort: number;

describe('a deployment of the test app', () => {
  it('is created running, answers on its published port, with env literal, bound secret and a 0400 secret file', async () => {
    hostPort = await freePort();
    const created = await call('POST', '/api/v1/deployments', {
      body: {
        name: 'app',
        template_slug: 'app',
        env: { GREETING: 'hello from core', DB_PASSWORD: { secret: 'db.password' } },
        secret_refs: ['tls-key'],
        host_ports: [{ container_port: 8080, protocol: 'tcp', host_port: hostPort }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.desired_state).toBe('running');
    app = await waitForDeployment(t, admin, created.body.id, running, 'app running');
    expect(app.observed).toMatchObject({
      state: 'running',
      reason: null,
      ports: [{ container_port: 8080, protocol: 'tcp', host_ip: '127.0.0.1', host_port: hostPort }],
      image: 'localhost/core-test-app:1',
      update_available: false,
      needs_restart: false,
    });
    const url = publishedUrl(app);
    expect(await waitUntilAnswers(url)).toContain('core-test-app 1');
    const env = await readEnv(url);
    expect(env).toMatchObject({
      GREETING: 'hello from core',
      DB_PASSWORD: SECRET,
      FROM_TEMPLATE: 'template-literal',
    });
    // A secret_ref is a file, never a variable.
    expect(Object.values(env)).not.toContain(FILE_SECRET);
    expect(await readSecrets(url)).toEqual({ 'tls-key': { mode: '400', content: FILE_SECRET } });

    // The container carries the labels; its spec hash is not a function of the value alone.
    const [container] = await containersOf(engine, app.id);
    expect(container!.Labels).toMatchObject({
      [LABEL.instance]: instance,
      [LABEL.deployment]: app.id,
      [LABEL.templateVersion]: '1',
    });
    expect(JSON.stringify(await engine.docker.getContainer(container!.Id).inspect())).not.toContain(FILE_SECRET);
    const inspected = await engine.docker.getContainer(container!.Id).inspect();
    expect(inspected.HostConfig.NanoCpus).toBe(500_000_000);
    expect(inspected.HostConfig.Memory).toBe(64 * 1024 * 1024);
    expect(inspected.HostConfig.RestartPolicy?.Name).toBe('unless-stopped');
  });

  it('lists with the observed state, and an idle pass costs one engine call', async () => {
    const list = await call('GET', '/api/v1/deployments');
    expect(list.body.deployments.find((d: any) => d.id === app.id).observed.state).toBe('running');
    // The container's own start events may still arrive (one inspect then): an idle pass follows.
    for (let i = 0; i < 5; i++) {
      await t.core.reconciler.passNow();
      if (t.core.reconciler.lastPass.otherCalls === 0) break;
    }
    expect(t.core.reconciler.lastPass).toMatchObject({ listCalls: 1, otherCalls: 0 });
  });

  it('is replaced with the new spec on update, keeping its volume', async () => {
    const before = (await containersOf(engine, app.id))[0]!.Id;
    const wrote = await fetch(`${publishedUrl(app)}/cgi-bin/write?/data/kept.txt`, { method: 'POST', body: 'kept' });
    expect(wrote.status).toBe(200);
    const updated = await call('PUT', `/api/v1/deployments/${app.id}`, {
      body: { env: { ...app.env, GREETING: 'v2' } },
    });
    expect(updated.status).toBe(200);
    const d = await waitForDeployment(
      t,
      admin,
      app.id,
      (x) => running(x) && x.observed.since > app.observed.since,
      'replaced',
    );
    const after = await containersOf(engine, app.id);
    expect(after).toHaveLength(1);
    expect(after[0]!.Id).not.toBe(before);
    expect((await readEnv(await waitUntilAnswers(publishedUrl(d)).then(() => publishedUrl(d)))).GREETING).toBe('v2');
    expect(await (await fetch(`${publishedUrl(d)}/cgi-bin/file?/data/kept.txt`)).text()).toBe('kept');
    app = d;
  });

  it('stops, starts and restarts', async () => {
    const stopped = await call('POST', `/api/v1/deployments/${app.id}/stop`);
    expect(stopped.status).toBe(200);
    expect(stopped.body.desired_state).toBe('stopped');
    await waitForDeployment(t, admin, app.id, (d) => d.observed.state === 'exited', 'exited');
    expect((await containersOf(engine, app.id))[0]!.State).toBe('exited');

    expect((await call('POST', `/api/v1/deployments/${app.id}/start`)).status).toBe(200);
    const started = await waitForDeployment(t, admin, app.id, running, 'running again');
    await waitUntilAnswers(publishedUrl(started));

    const id = (await containersOf(engine, app.id))[0]!.Id;
    const startedAt = (await engine.docker.getContainer(id).inspect()).State.StartedAt;
    expect((await call('POST', `/api/v1/deployments/${app.id}/restart`)).status).toBe(200);
    const after = await engine.docker.getContainer(id).inspect();
    expect(after.State.Running).toBe(true);
    expect(after.State.StartedAt).not.toBe(startedAt);

    const activity = await call('GET', `/api/v1/activity?target_type=deployment&target_id=${app.id}`);
    const actions = activity.body.entries.map((e: any) => e.action);
    expect(actions).toEqual(expect.arrayContaining(['deployment.stop', 'deployment.start', 'deployment.restart']));
  });

  it('is restored within one pass when removed or stopped by hand', async () => {
    const restoredEntries = async () =>
      (await call('GET', `/api/v1/activity?target_type=deployment&target_id=${app.id}`)).body.entries.filter(
        (e: any) => e.action === 'deployment.restored',
      );
    await t.core.reconciler.passNow();
    const [c] = await containersOf(engine, app.id);
    // Podman refuses a removal while it is still cleaning up after the restart before: asked again then. That late
    // clean-up has also been seen to stop the restarted container (Core restores it): entries until the removal
    // are not this test's. (The removal's own events start a pass 300 ms later.)
    await waitFor(() => engine.docker.getContainer(c!.Id).remove({ force: true }), { what: 'removed by hand' });
    const earlier = (await restoredEntries()).length;
    await t.core.reconciler.passNow();
    const restored = await containersOf(engine, app.id);
    expect(restored).toHaveLength(1);
    expect(restored[0]!.State).toBe('running');

    await stopByHand(restored[0]!.Id);
    await t.core.reconciler.passNow();
    expect((await containersOf(engine, app.id))[0]!.State).toBe('running');
    const d = await waitForDeployment(t, admin, app.id, running, 'running after restore');
    await waitUntilAnswers(publishedUrl(d));
    // Newest first: this test's are the ones before the earlier ones.
    const all = await restoredEntries();
    const entries = all.slice(0, all.length - earlier);
    expect(entries.map((e: any) => e.after.how)).toEqual([
      'its container was stopped outside Core: started again',
      'its container was removed outside Core: created again',
    ]);
    expect(entries[0].actor).toMatchObject({ kind: 'engine', label: 'container engine' });
  });

  it('records a crash as an engine-side activity entry and comes back', async () => {
    // Restarted by Core first: its exit then was expected, a crash after it is not.
    expect((await call('POST', `/api/v1/deployments/${app.id}/restart`)).status).toBe(200);
    await waitUntilAnswers(publishedUrl(app));
    const [before] = await containersOf(engine, app.id);
    await fetch(`${publishedUrl(app)}/cgi-bin/exit?3`).catch(() => {});
    const entry = await waitFor(
      async () => {
        const res = await call('GET', `/api/v1/activity?target_type=deployment&target_id=${app.id}`);
        const crash = res.body.entries.find((e: any) => e.action === 'deployment.crashed' && e.after.exit_code === 3);
        if (!crash) throw new Error('no crash entry yet');
        return crash;
      },
      { timeoutMs: 20_000, what: 'a crash entry' },
    );
    expect(entry).toMatchObject({ actor: { kind: 'engine' }, via: 'engine', after: { exit_code: 3 } });
    // The removal and the stop by hand before were no crashes (one entry per minute: one would have hidden this).
    const activity = await call('GET', `/api/v1/activity?target_type=deployment&target_id=${app.id}`);
    expect(activity.body.entries.filter((e: any) => e.action === 'deployment.crashed')).toHaveLength(1);
    const d = await waitForDeployment(t, admin, app.id, running, 'running after the crash');
    expect((await containersOf(engine, app.id))[0]!.Id).toBe(before!.Id);
    await waitUntilAnswers(publishedUrl(d));
    await t.core.reconciler.passNow();
    const counted = (await call('GET', `/api/v1/deployments/${app.id}`)).body;
    expect(counted.observed.state).toBe('running');
  });

  it('is no crash when stopped by hand with exit 137 (a process ignoring SIGTERM; Podman reports no stop)', async () => {
    const port = await freePort();
    const created = await call('POST', '/api/v1/deployments', {
      body: {
        name: 'deaf',
        template_slug: 'deaf',
        host_ports: [{ container_port: 8080, protocol: 'tcp', host_port: port }],
      },
    });
    const deaf = await waitForDeployment(t, admin, created.body.id, running, 'deaf running');
    const url = publishedUrl(deaf);
    await waitUntilAnswers(url);
    const [c] = await containersOf(engine, deaf.id);
    const container = engine.docker.getContainer(c!.Id);
    const startedAt = (await container.inspect()).State.StartedAt;
    // A pass right after the exit, before the engine's next event says whether it was by hand (Podman: a bare die,
    // its cleanup a moment later). Without ranUntilOutside (reconcilerActions.ts) 2 of 5 runs had no restored entry.
    const events = (await engine.docker.getEvents({ filters: { container: [c!.Id] } })) as Readable;
    const passOnDie = new Promise<void>((resolve) => {
      const onData = (chunk: Buffer) => {
        if (!/"(Action|status)":"died?"/.test(chunk.toString())) return;
        events.off('data', onData);
        setTimeout(() => void t.core.reconciler.passNow().finally(resolve), 30);
      };
      events.on('data', onData);
    });
    await stopByHand(c!.Id);
    await passOnDie;
    events.destroy();
    // Core starts it again (stopped outside Core).
    await waitFor(
      async () => {
        const state = (await container.inspect()).State;
        if (!state.Running || state.StartedAt === startedAt) throw new Error(`not started again: ${state.Status}`);
      },
      { timeoutMs: 15_000, what: 'started again' },
    );
    const entries = async (action: string) =>
      (await call('GET', `/api/v1/activity?target_type=deployment&target_id=${deaf.id}`)).body.entries.filter(
        (e: any) => e.action === action,
      );
    // A restore, though the pass on the die recorded it as exited before the cleanup told a stop by hand from a crash.
    await waitFor(
      async () => {
        const restored = await entries('deployment.restored');
        if (restored.length === 0) throw new Error('no restored entry yet');
        expect(restored.map((e: any) => e.after.how)).toEqual([
          'its container was stopped outside Core: started again',
        ]);
      },
      { timeoutMs: 5_000, what: 'a restored entry' },
    );
    const crashes = () => entries('deployment.crashed');
    await waitUntilAnswers(url);
    // A crash now is recorded: taking the stop for one would have hidden it (one crash entry per minute).
    await fetch(`${url}/cgi-bin/exit?3`).catch(() => {});
    await waitFor(
      async () => {
        const seen = await crashes();
        if (!seen.some((e: any) => e.after.exit_code === 3))
          throw new Error(`no crash entry yet (crash entries: ${JSON.stringify(seen.map((e: any) => e.after))})`);
      },
      { timeoutMs: 20_000, what: 'a crash entry' },
    );
    expect((await crashes()).map((e: any) => e.after.exit_code)).toEqual([3]);
    expect((await call('DELETE', `/api/v1/deployments/${deaf.id}`)).status).toBe(204);
  });

  it('shows its logs to an admin only', async () => {
    const logs = await t.call('GET', `/api/v1/deployments/${app.id}/logs?tail=50`, { token: admin });
    expect(logs.status).toBe(200);
    expect(logs.headers.get('content-type')).toContain('text/plain');
    const readonly = await localUser(t, admin, 'readonly');
    const denied = await t.call('GET', `/api/v1/deployments/${app.id}/logs`, { token: readonly.token });
    expect(denied.status).toBe(403);
    const seen = await t.call('GET', `/api/v1/deployments/${app.id}`, { token: readonly.token });
    expect(seen.status).toBe(200);
    expect(seen.body.observed.state).toBe('running');
    expect(seen.body.observed.ports[0].host_port).toBe(hostPort);
    answers.push(JSON.stringify(seen.body));
    expect((await t.call('POST', `/api/v1/deployments/${app.id}/stop`, { token: readonly.token })).status).toBe(403);
  });

  it('follows its logs as a stream', async () => {
    const controller = new AbortController();
    const res = await fetch(`${t.url}/api/v1/deployments/${app.id}/logs?tail=0&follow=true`, {
      headers: { authorization: `Bearer ${admin}` },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    // The answer is open (streaming): a read resolves only when output arrives; none may arrive, so race a timer.
    const first = await Promise.race([
      reader.read().then(() => 'data'),
      new Promise((r) => setTimeout(() => r('open'), 500)),
    ]);
    expect(['data', 'open']).toContain(first);
    controller.abort();
  });

  it('deletes its container and keeps its volume unless asked', async () => {
    const volumeLabel = JSON.stringify({ label: [`${LABEL.deployment}=${app.id}`] });
    expect((await engine.docker.listVolumes({ filters: volumeLabel })).Volumes).toHaveLength(1);
    expect((await call('DELETE', `/api/v1/deployments/${app.id}`)).status).toBe(204);
    expect(await containersOf(engine, app.id)).toHaveLength(0);
    expect((await engine.docker.listVolumes({ filters: volumeLabel })).Volumes).toHaveLength(1);

    const again = await call('POST', '/api/v1/deployments', { body: { name: 'app-vol', template_slug: 'app' } });
    await waitForDeployment(t, admin, again.body.id, running, 'second app running');
    const volumes = JSON.stringify({ label: [`${LABEL.deployment}=${again.body.id}`] });
    expect((await engine.docker.listVolumes({ filters: volumes })).Volumes).toHaveLength(1);
    const deleted = await call('DELETE', `/api/v1/deployments/${again.body.id}?volumes=true`);
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(204);
    expect(await containersOf(engine, again.body.id)).toHaveLength(0);
    expect((await engine.docker.listVolumes({ filters: volumes })).Volumes).toHaveLength(0);
  });
});

describe('failures in words', () => {
  it('a missing image fails naming it', async () => {
    const created = await call('POST', '/api/v1/deployments', {
      body: { name: 'absent', template_slug: 'missing-image' },
    });
    const d = await waitForDeployment(t, admin, created.body.id, (x) => x.observed.state === 'failed', 'failed');
    expect(d.observed.reason).toContain('localhost/core-test-absent:nope');
    // Retried every minute, written to the activity log once.
    await t.core.reconciler.passNow();
    const activity = await call('GET', `/api/v1/activity?target_type=deployment&target_id=${created.body.id}`);
    expect(activity.body.entries.filter((e: any) => e.action === 'deployment.failed')).toMatchObject([
      { after: { reason: d.observed.reason } },
    ]);
    expect(d.observed.reason).toMatch(/is not on the engine and could not be pulled: its registry is unreachable/);
  });

  it('a host port in use fails naming it', async () => {
    const blocker = net.createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    try {
      const created = await call('POST', '/api/v1/deployments', {
        body: {
          name: 'port-taken',
          template_slug: 'app',
          host_ports: [{ container_port: 8080, protocol: 'tcp', host_port: port }],
        },
      });
      const d = await waitForDeployment(t, admin, created.body.id, (x) => x.observed.state === 'failed', 'failed');
      expect(d.observed.reason).toContain(String(port));
      expect(d.observed.reason).toMatch(/in use/);
    } finally {
      blocker.close();
    }
  });

  it('a container killed at its memory limit reads restarting, in words, and is one crash entry', async () => {
    const created = await call('POST', '/api/v1/deployments', { body: { name: 'hog', template_slug: 'memory-hog' } });
    const d = await waitForDeployment(
      t,
      admin,
      created.body.id,
      (x) => x.observed.state === 'restarting' && /out of memory/.test(x.observed.reason ?? ''),
      'restarting out of memory',
    );
    expect(d.observed.reason).toMatch(/16Mi/);
    // The engine restarts it (policy unless-stopped), and Core counts it.
    const counted = await waitForDeployment(t, admin, d.id, (x) => x.observed.restarts >= 1, 'restarts counted');
    expect(counted.observed.restarts).toBeGreaterThanOrEqual(1);
    const inspected = await engine.docker.getContainer((await containersOf(engine, d.id))[0]!.Id).inspect();
    expect(inspected.HostConfig.Memory).toBe(16 * 1024 * 1024);
    await new Promise((r) => setTimeout(r, 1500));
    const activity = await call('GET', `/api/v1/activity?target_type=deployment&target_id=${d.id}`);
    const crashes = activity.body.entries.filter((e: any) => /crashed|oom_killed/.test(e.action));
    expect(crashes).toHaveLength(1);
    expect((await call('POST', `/api/v1/deployments/${d.id}/stop`)).status).toBe(200);
  });

  it('a bad quantity fails that deployment only; an unmet node_selector is unschedulable', async () => {
    const bad = await call('POST', '/api/v1/deployments', { body: { name: 'bad-q', template_slug: 'bad-quantity' } });
    const zone = await call('POST', '/api/v1/deployments', { body: { name: 'zone', template_slug: 'gpu-zone' } });
    const b = await waitForDeployment(t, admin, bad.body.id, (x) => x.observed.state === 'failed', 'failed');
    expect(b.observed.reason).toMatch(/bad quantity in the template: memory_request "64 megabytes"/);
    const z = await waitForDeployment(t, admin, zone.body.id, (x) => x.observed.state === 'unschedulable', 'unsched');
    expect(z.observed.reason).toContain('zone=gpu-east');
    expect(await containersOf(engine, bad.body.id)).toHaveLength(0);
  });
});

describe('secrets', () => {
  it('never appear in an answer, nor anywhere in Core’s log', () => {
    const all = answers.join('\n') + t.logs.join('\n');
    expect(answers.length).toBeGreaterThan(10);
    expect(all).not.toContain(SECRET);
    expect(all).not.toContain(FILE_SECRET);
  });
});

/**
 * What no engine here can show, because no registry is reachable from these machines (issue 33): an image from a
 * private registry is pulled with the credentials of Core's sealed secret `registry.<host>`, the pull's progress is
 * the deployment's `observed.pull` while it runs, and the container follows when it ends. The engine is a recording
 * stand-in for the Docker Engine API (the runtime interface); Core, its database and its API are real.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Reconciler } from '../src/domain/reconciler';
import type {
  ContainerSpec,
  InspectedContainer,
  ObservedContainer,
  PullProgress,
  Runtime,
} from '../src/runtime/runtime';
import { appTemplate, runtimeSettings, syncCatalog } from './engine/coreOnEngine';
import { coreWithAdmin } from './helpers';

const PASSWORD = 'registry-password-4f1c0e';

/** An engine that pulls only when told to and runs what it is given. */
class RecordingEngine implements Runtime {
  readonly description = 'recording engine';
  pulls: { image: string; auth: ContainerSpec['registryAuth'] }[] = [];
  created: ContainerSpec[] = [];
  private images = new Set<string>();
  private containers = new Map<string, ObservedContainer>();
  private progress: ((p: PullProgress) => void) | null = null;
  private finish: (() => void) | null = null;

  async ping() {}
  async list(labels: Record<string, string>) {
    return [...this.containers.values()].filter((c) => Object.entries(labels).every(([k, v]) => c.labels[k] === v));
  }
  async inspect(id: string): Promise<InspectedContainer | null> {
    const c = this.containers.get(id);
    return c ? { ...c, oomKilled: false, restarts: 0, error: '', startedAt: null, finishedAt: null } : null;
  }
  async hasImage(image: string) {
    return this.images.has(image);
  }
  pull(image: string, auth: ContainerSpec['registryAuth'], onProgress: (p: PullProgress) => void) {
    this.pulls.push({ image, auth });
    this.progress = onProgress;
    return new Promise<void>((resolve) => {
      this.finish = () => {
        this.images.add(image);
        resolve();
      };
    });
  }
  report(p: PullProgress) {
    this.progress?.(p);
  }
  endPull() {
    this.finish?.();
  }
  async create(spec: ContainerSpec) {
    this.created.push(spec);
    const id = `c${this.created.length}`;
    this.containers.set(id, {
      id,
      name: spec.name,
      labels: spec.labels,
      state: 'created',
      health: null,
      image: spec.image,
      ports: [],
      exitCode: null,
      created: Math.floor(Date.now() / 1000),
    });
    return id;
  }
  async start(id: string) {
    this.containers.get(id)!.state = 'running';
  }
  async stop(id: string) {
    this.containers.get(id)!.state = 'exited';
  }
  async restart() {}
  async remove(id: string) {
    this.containers.delete(id);
  }
  async removeVolumes() {
    return 0;
  }
  async logs(): Promise<NodeJS.ReadableStream> {
    throw new Error('no logs here');
  }
  events() {
    return () => {};
  }
}

let env: Awaited<ReturnType<typeof coreWithAdmin>>;
let engine: RecordingEngine;
let reconciler: Reconciler;

beforeAll(async () => {
  env = await coreWithAdmin();
  engine = new RecordingEngine();
  const core = env.t.core;
  reconciler = new Reconciler({
    db: core.db,
    database: core.database,
    sealer: core.sealer,
    settings: runtimeSettings('unix:///recording.sock'),
    log: core.log,
    runtime: engine,
    instanceId: core.reconciler.instanceId,
  });
  await syncCatalog(env.t, [
    appTemplate('private', {
      registry_url: 'https://registry.example.test',
      image_name: 'team/app',
      image_tag: '3.1',
    }),
  ]);
});
afterAll(async () => {
  await reconciler?.stop();
  await env?.stop();
});

it('pulls from a private registry with the sealed registry.<host> secret, showing progress, then runs it', async () => {
  const put = await env.t.call('PUT', '/api/v1/secrets/registry.registry.example.test', {
    token: env.admin,
    body: { value: `robot:${PASSWORD}`, description: 'pull credentials' },
  });
  expect(put.status).toBe(200);
  const created = await env.t.call('POST', '/api/v1/deployments', {
    token: env.admin,
    body: { name: 'private', template_slug: 'private' },
  });
  expect(created.status).toBe(201);
  const id = created.body.id;

  await reconciler.passNow();
  expect(engine.pulls).toEqual([
    {
      image: 'registry.example.test/team/app:3.1',
      auth: { serveraddress: 'registry.example.test', username: 'robot', password: PASSWORD },
    },
  ]);
  engine.report({ status: 'Downloading', current_bytes: 512, total_bytes: 2048 });
  await reconciler.passNow();
  const pulling = (await env.t.call('GET', `/api/v1/deployments/${id}`, { token: env.admin })).body;
  expect(pulling.observed).toMatchObject({
    state: 'pulling',
    image: 'registry.example.test/team/app:3.1',
    pull: { status: 'Downloading', current_bytes: 512, total_bytes: 2048 },
  });

  engine.endPull();
  await new Promise((r) => setTimeout(r, 50));
  await reconciler.passNow();
  const runningNow = (await env.t.call('GET', `/api/v1/deployments/${id}`, { token: env.admin })).body;
  expect(runningNow.observed.state).toBe('running');
  expect(runningNow.observed.pull).toBeUndefined();
  expect(engine.created).toHaveLength(1);
  expect(engine.created[0]!.registryAuth).toMatchObject({ username: 'robot' });
  expect(JSON.stringify([pulling, runningNow]) + env.t.logs.join('\n')).not.toContain(PASSWORD);
});

/**
 * Core's runtime without an engine (issue 33): the settings (bad syntax is a clear start-up error), Kubernetes
 * quantities, the template → container mapping and its hashes (never a secret value; a rotation changes the spec
 * hash, not the config hash), Docker's DOCKER_HOST conventions, and CORE_RUNTIME=none / no engine answering:
 * desired state only, observed unknown saying how to enable an engine, engine calls 503.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromEnv, parseNodeLabels, parseUlimits } from '../src/config';
import { planContainer, type DesiredDeployment } from '../src/domain/containerSpec';
import { dockerOptions } from '../src/runtime/docker';
import { parseCpu, parseMemory } from '../src/runtime/quantity';
import { appTemplate, runtimeSettings, syncCatalog } from './engine/coreOnEngine';
import { coreWithAdmin, expectErrorShape } from './helpers';

describe('settings', () => {
  it('parses ulimits, node labels and the engine variables', () => {
    expect(parseUlimits('nofile=1024:2048, nproc=512')).toEqual([
      { name: 'nofile', soft: 1024, hard: 2048 },
      { name: 'nproc', soft: 512, hard: 512 },
    ]);
    expect(parseNodeLabels('zone=eu, gpu=a100')).toEqual({ zone: 'eu', gpu: 'a100' });
    const c = configFromEnv({
      DOCKER_HOST: 'tcp://engine.test:2376',
      DOCKER_TLS_VERIFY: '1',
      CORE_RUNTIME: 'docker',
      CORE_PUBLISH_ADDRESS: '0.0.0.0',
      CORE_CONTAINER_ULIMITS: 'nofile=1024:1024',
    });
    expect(c.runtime).toMatchObject({
      mode: 'docker',
      dockerHost: 'tcp://engine.test:2376',
      dockerTlsVerify: true,
      publishAddress: '0.0.0.0',
      ulimits: [{ name: 'nofile', soft: 1024, hard: 1024 }],
    });
    expect(configFromEnv({}).runtime).toMatchObject({ mode: 'auto', publishAddress: '127.0.0.1', ulimits: [] });
  });

  it.each([
    [{ CORE_CONTAINER_ULIMITS: 'nofile' }, /CORE_CONTAINER_ULIMITS: "nofile" is not name=soft:hard/],
    [{ CORE_CONTAINER_ULIMITS: 'nofile=2048:1024' }, /soft limit is above the hard one/],
    [{ CORE_NODE_LABELS: 'zone' }, /CORE_NODE_LABELS: "zone" is not key=value/],
    [{ CORE_RUNTIME: 'kubernetes' }, /CORE_RUNTIME must be docker or none/],
    [{ DOCKER_HOST: '/var/run/docker.sock' }, /DOCKER_HOST must be unix:\/\/\/path/],
    [{ CORE_PUBLISH_ADDRESS: 'localhost' }, /CORE_PUBLISH_ADDRESS must be an IP address/],
  ])('refuses %j at start with a message naming it', (env, message) => {
    expect(() => configFromEnv(env)).toThrow(message);
  });

  it('maps DOCKER_HOST to the client as Docker does', () => {
    expect(dockerOptions(runtimeSettings('unix:///run/podman.sock'))).toEqual({
      options: { socketPath: '/run/podman.sock' },
      description: 'docker at unix:///run/podman.sock',
    });
    expect(dockerOptions({ ...runtimeSettings('tcp://10.0.0.5:2375') }).options).toEqual({
      host: '10.0.0.5',
      port: 2375,
      protocol: 'http',
    });
    const certs = fs.mkdtempSync(path.join(os.tmpdir(), 'docker-certs-'));
    for (const f of ['ca.pem', 'cert.pem', 'key.pem']) fs.writeFileSync(path.join(certs, f), `${f} content`);
    const tls = dockerOptions({
      ...runtimeSettings('tcp://engine.test'),
      dockerTlsVerify: true,
      dockerCertPath: certs,
    }).options;
    expect(tls).toMatchObject({ host: 'engine.test', port: 2376, protocol: 'https' });
    expect(String(tls.ca)).toBe('ca.pem content');
    fs.rmSync(certs, { recursive: true });
  });
});

describe('quantities', () => {
  it.each([
    ['500m', 500_000_000],
    ['2', 2_000_000_000],
    ['0.5', 500_000_000],
    ['', null],
    ['0', null],
  ])('cpu %s → %s NanoCpus', (q, n) => expect(parseCpu(q)).toBe(n));
  it.each([
    ['512Mi', 512 * 2 ** 20],
    ['1Gi', 2 ** 30],
    ['128M', 128e6],
    ['1e9', 1e9],
    ['1048576', 1048576],
    ['', null],
  ])('memory %s → %s bytes', (q, n) => expect(parseMemory(q)).toBe(n));
  it.each([
    ['cpu', 'two'],
    ['cpu', '500Mi'],
    ['memory', '1GB'],
    ['memory', '64 megabytes'],
  ])('%s %s is refused naming it', (kind, q) => {
    expect(() => (kind === 'cpu' ? parseCpu(q) : parseMemory(q))).toThrow(JSON.stringify(q));
  });
});

describe('template → container', () => {
  const settings = { publishAddress: '127.0.0.1', nodeLabels: { zone: 'eu' }, ulimits: parseUlimits('nofile=1024') };
  const deployment = (over: Partial<DesiredDeployment> = {}): DesiredDeployment => ({
    id: '11111111-2222-3333-4444-555555555555',
    name: 'web',
    desiredState: 'running',
    snapshot: appTemplate('web', {
      command: ['httpd', '-f'],
      gpu_count: 2,
      registry_url: 'https://registry.example.test',
      image_name: 'team/web',
      image_tag: '1.2',
      node_selector: { zone: 'eu' },
    }),
    env: { GREETING: 'hi' },
    bindings: { DB_PASSWORD: 'db.password' },
    secretRefs: ['tls-key'],
    hostPorts: [{ container_port: 8080, protocol: 'tcp', host_port: 18080 }],
    ...over,
  });
  const versions = new Map([
    ['db.password', '2026-11-01T00:00:00.000Z'],
    ['tls-key', '2026-11-01T00:00:00.000Z'],
  ]);

  it('maps every field, with secret values only in the resolved spec', () => {
    const plan = planContainer(deployment(), versions, settings, 'abcdef0123456789');
    if (!plan.ok) throw new Error(plan.reason);
    const spec = plan.resolve(
      new Map([
        ['db.password', 'VALUE-ONE'],
        ['tls-key', 'VALUE-TWO'],
      ]),
      null,
    );
    expect(spec).toMatchObject({
      image: 'registry.example.test/team/web:1.2',
      command: ['httpd', '-f'],
      env: { GREETING: 'hi', DB_PASSWORD: 'VALUE-ONE', FROM_TEMPLATE: 'template-literal' },
      files: [{ path: '/run/secrets/tls-key', content: 'VALUE-TWO', mode: 0o400 }],
      ports: [{ containerPort: 8080, protocol: 'tcp', hostIp: '127.0.0.1', hostPort: 18080 }],
      volumes: [{ name: 'core-abcdef01-11111111-2222-3333-4444-555555555555-data', mountPath: '/data' }],
      nanoCpus: 500_000_000,
      memoryBytes: 64 * 2 ** 20,
      gpuCount: 2,
      ulimits: [{ name: 'nofile', soft: 1024, hard: 1024 }],
    });
    expect(plan.registryHost).toBe('registry.example.test');
    expect(JSON.stringify(plan.labels) + plan.name).not.toMatch(/VALUE-/);
    expect(Object.keys(spec.env)).not.toContain('tls-key');
  });

  it('a rotated secret changes the spec hash only; a changed variable changes both', () => {
    const base = planContainer(deployment(), versions, settings, 'i');
    const rotated = planContainer(
      deployment(),
      new Map([...versions, ['db.password', '2026-11-02T00:00:00.000Z']]),
      settings,
      'i',
    );
    const changed = planContainer(deployment({ env: { GREETING: 'hello' } }), versions, settings, 'i');
    if (!base.ok || !rotated.ok || !changed.ok) throw new Error('plan failed');
    expect(rotated.configHash).toBe(base.configHash);
    expect(rotated.specHash).not.toBe(base.specHash);
    expect(changed.configHash).not.toBe(base.configHash);
  });

  it('a secret that no longer exists fails the deployment naming it', () => {
    const plan = planContainer(deployment(), new Map([['db.password', 'x']]), settings, 'i');
    expect(plan).toMatchObject({
      ok: false,
      state: 'failed',
      reason: expect.stringContaining('secret tls-key no longer exists'),
    });
  });

  it('an unmet node_selector is unschedulable; a bad quantity or port fails with the reason', () => {
    const away = planContainer(deployment(), versions, { ...settings, nodeLabels: { zone: 'us' } }, 'i');
    expect(away).toMatchObject({ ok: false, state: 'unschedulable', reason: expect.stringContaining('zone=eu') });
    const bad = planContainer(
      deployment({ snapshot: appTemplate('x', { cpu_request: 'lots' }) }),
      versions,
      settings,
      'i',
    );
    expect(bad).toMatchObject({ ok: false, state: 'failed', reason: expect.stringContaining('cpu_request "lots"') });
    const port = planContainer(
      deployment({ snapshot: appTemplate('x', { ports: [{ containerPort: 70000, protocol: 'TCP' }] }) }),
      versions,
      settings,
      'i',
    );
    expect(port).toMatchObject({ ok: false, state: 'failed', reason: expect.stringContaining('bad port') });
  });
});

describe('without an engine', () => {
  let env: Awaited<ReturnType<typeof coreWithAdmin>>;
  let id: string;

  beforeAll(async () => {
    env = await coreWithAdmin();
    await syncCatalog(env.t, [appTemplate('app')]);
    const created = await env.t.call('POST', '/api/v1/deployments', {
      token: env.admin,
      body: { name: 'app', template_slug: 'app', desired_state: 'stopped' },
    });
    expect(created.status).toBe(201);
    id = created.body.id;
  });
  afterAll(() => env?.stop());

  it('keeps desired state and reads unknown, saying how to enable an engine', async () => {
    const d = (await env.t.call('GET', `/api/v1/deployments/${id}`, { token: env.admin })).body;
    expect(d.desired_state).toBe('stopped');
    expect(d.observed).toMatchObject({ state: 'unknown', update_available: false, needs_restart: false, ports: [] });
    expect(d.observed.reason).toMatch(/CORE_RUNTIME=none.*DOCKER_HOST/);
    const started = await env.t.call('POST', `/api/v1/deployments/${id}/start`, { token: env.admin });
    expect(started.status).toBe(200);
    expect(started.body.desired_state).toBe('running');
  });

  it('answers 503 for what needs the engine', async () => {
    for (const [method, p] of [
      ['GET', `/api/v1/deployments/${id}/logs`],
      ['POST', `/api/v1/deployments/${id}/restart`],
      ['DELETE', `/api/v1/deployments/${id}?volumes=true`],
    ] as const) {
      const res = await env.t.call(method, p, { token: env.admin });
      expect(res.status, `${method} ${p}`).toBe(503);
      expectErrorShape(res);
      expect(res.body.message).toMatch(/no container engine/);
    }
    expect((await env.t.call('DELETE', `/api/v1/deployments/${id}`, { token: env.admin })).status).toBe(204);
  });

  it('refuses a host port the template does not publish, and bad query values', async () => {
    const res = await env.t.call('POST', '/api/v1/deployments', {
      token: env.admin,
      body: { name: 'p', template_slug: 'app', host_ports: [{ container_port: 9999, host_port: 19999 }] },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('does not publish 9999/tcp');
    const bad = await env.t.call('DELETE', `/api/v1/deployments/${id}?volumes=maybe`, { token: env.admin });
    expect(bad.status).toBe(400);
  });

  it('CORE_RUNTIME unset and no engine answering: none, said once in the log', async () => {
    const other = await coreWithAdmin({
      runtime: { ...runtimeSettings('unix:///nonexistent/engine.sock'), mode: 'auto' },
    });
    try {
      expect(other.t.core.reconciler.engine().state).toBe('none');
      expect(other.t.logs.filter((l) => l.includes('no container engine answered'))).toHaveLength(1);
    } finally {
      await other.stop();
    }
  });
});

/**
 * A Core (in this process) that runs its deployments on the test engine: CORE_RUNTIME=docker at the fixture's
 * DOCKER_HOST with the sandbox's ulimits, a short reconcile interval, and a synced catalog of test templates
 * (the locally imported test image). Everything Core creates carries its instance label and is removed by it.
 */
import { randomUUID } from 'node:crypto';
import type { CoreConfig, RuntimeConfig } from '../../src/config';
import { parseUlimits } from '../../src/config';
import type { CatalogTemplate } from '../../src/domain/catalog';
import { LABEL } from '../../src/domain/containerSpec';
import { startCore, TEMP_ADMIN, type TestCore } from '../helpers';

// The engine tests and the runtime bench import it from here.
export { syncCatalog } from '../helpers';
import { APP_IMAGE_1, APP_PORT, removeByLabel, ULIMITS_TEXT, waitFor, type TestEngine } from './fixture';

export function runtimeSettings(dockerHost: string, overrides: Partial<RuntimeConfig> = {}): RuntimeConfig {
  return {
    mode: 'docker',
    dockerHost,
    dockerTlsVerify: false,
    dockerCertPath: null,
    ulimits: parseUlimits(ULIMITS_TEXT),
    publishAddress: '127.0.0.1',
    nodeLabels: {},
    reconcileIntervalSeconds: 1,
    ...overrides,
  };
}

export const appTemplate = (slug: string, fields: Partial<CatalogTemplate> & Record<string, unknown> = {}) =>
  ({
    id: randomUUID(),
    slug,
    name: `App ${slug}`,
    description: 'the test app',
    version: '1',
    category_slug: 'test',
    updated_at: '2026-11-01T00:00:00.000Z',
    image_name: APP_IMAGE_1.split(':')[0],
    image_tag: APP_IMAGE_1.split(':')[1],
    cpu_request: '500m',
    memory_request: '64Mi',
    gpu_count: 0,
    ports: [{ containerPort: APP_PORT, protocol: 'TCP' }],
    volume_mounts: [{ name: 'data', mountPath: '/data' }],
    node_selector: {},
    env: [{ name: 'FROM_TEMPLATE', value: 'template-literal' }],
    env_schema: [
      { name: 'GREETING', required: false, default_value: 'hello', description: '' },
      { name: 'DB_PASSWORD', required: false, default_value: '', description: '' },
    ],
    ...fields,
  }) as CatalogTemplate;

/** Replaces the synced catalog with these templates (as a Hub sync would). */

export async function coreOnEngine(
  engine: Pick<TestEngine, 'dockerHost'>,
  opts: {
    runtime?: Partial<RuntimeConfig>;
    config?: Partial<CoreConfig>;
    database?: { databaseUrl: string | null };
  } = {},
) {
  const t = await startCore(
    { temporaryAdmin: TEMP_ADMIN, runtime: runtimeSettings(engine.dockerHost, opts.runtime), ...opts.config },
    opts.database,
  );
  const admin = (await t.call('POST', '/api/v1/auth/login', { body: TEMP_ADMIN })).body.access_token as string;
  return { t, admin, instance: t.core.reconciler.instanceId };
}

/** Everything a Core instance created on the engine. */
export const cleanUp = (engine: TestEngine, instance: string) =>
  removeByLabel(engine.docker, { [LABEL.instance]: instance });

/** This deployment's containers on the engine (running or not). */
export async function containersOf(engine: TestEngine, deploymentId: string) {
  return engine.docker.listContainers({
    all: true,
    filters: JSON.stringify({ label: [`${LABEL.deployment}=${deploymentId}`] }),
  });
}

/** Polls the deployment until `check` passes on it; returns it. */
export async function waitForDeployment(
  t: TestCore,
  token: string,
  id: string,
  check: (d: any) => boolean,
  what: string,
  timeoutMs = 30_000,
) {
  return waitFor(
    async () => {
      const res = await t.call('GET', `/api/v1/deployments/${id}`, { token });
      if (res.status !== 200) throw new Error(`GET deployment: ${res.status}`);
      if (!check(res.body)) throw new Error(`observed ${JSON.stringify(res.body.observed)}`);
      return res.body;
    },
    { timeoutMs, intervalMs: 200, what },
  );
}

export const publishedUrl = (d: { observed: { ports: { host_ip: string; host_port: number }[] } }) =>
  `http://127.0.0.1:${d.observed.ports[0]!.host_port}`;

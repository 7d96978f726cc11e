/**
 * Core's engine adapter (core/src/runtime/docker.ts) on the engine directly, without a Core process: what an engine
 * answers at awkward moments.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseUlimits } from '../../src/config';
import { LABEL } from '../../src/domain/containerSpec';
import { DockerRuntime } from '../../src/runtime/docker';
import type { ContainerSpec } from '../../src/runtime/runtime';
import {
  APP_IMAGE_1,
  removeByLabel,
  runLabel,
  sharedEngine,
  TEST_LABEL,
  ULIMITS_TEXT,
  type TestEngine,
} from './fixture';
import { runtimeSettings } from './coreOnEngine';

let engine: TestEngine;
let runtime: DockerRuntime;
const labels = runLabel('runtime-test');

beforeAll(async () => {
  engine = await sharedEngine();
  runtime = new DockerRuntime(runtimeSettings(engine.dockerHost));
});
afterAll(async () => {
  if (engine) await removeByLabel(engine.docker, labels);
  await engine?.close();
});

/** A container that exits at once, again and again: Core's restart policy brings it back each time. */
const crashLooping = (name: string): ContainerSpec => ({
  name,
  image: APP_IMAGE_1,
  registryAuth: null,
  command: ['sh', '-c', 'exit 3'],
  env: {},
  files: [],
  ports: [],
  volumes: [],
  nanoCpus: null,
  memoryBytes: null,
  gpuCount: 0,
  ulimits: parseUlimits(ULIMITS_TEXT),
  labels: { ...labels, [LABEL.instance]: 'runtime-test', [LABEL.deployment]: name },
});

it('removes a container caught between exiting and its restart (Podman refuses that moment with a 500)', async () => {
  // About one forced removal in ten lands in that moment on Podman: without the retry this failed 4 runs of 5.
  for (let i = 0; i < 20; i++) {
    const id = await runtime.create(crashLooping(`${labels[TEST_LABEL]}-${i}`));
    await runtime.start(id);
    await new Promise((resolve) => setTimeout(resolve, 100 + i * 17));
    await runtime.remove(id);
    expect(await runtime.inspect(id)).toBeNull();
  }
}, 60_000);

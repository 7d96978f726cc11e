/**
 * The engine fixture itself, on the engine directly (no Core): the imported test image runs with the ulimits,
 * answers on its port published on 127.0.0.1 with its environment and its /run/secrets files, stops on TERM at
 * once, exits with a given code; removeByLabel leaves nothing; a stopped engine refuses and comes back.
 */
import type Docker from 'dockerode';
import tar from 'tar-stream';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  APP_IMAGE_1,
  APP_IMAGE_2,
  APP_PORT,
  freePort,
  hostUlimits,
  readEnv,
  readSecrets,
  removeByLabel,
  runLabel,
  sharedEngine,
  startEngine,
  TEST_LABEL,
  waitFor,
  waitUntilAnswers,
  type TestEngine,
} from './fixture';

let engine: TestEngine;
const labels = runLabel('fixture-test');

beforeAll(async () => {
  engine = await sharedEngine();
});
afterAll(async () => {
  if (engine) await removeByLabel(engine.docker, labels);
  await engine?.close();
});

async function runApp(docker: Docker, image: string, env: string[], opts: { volume?: string } = {}) {
  const port = await freePort();
  const container = await docker.createContainer({
    Image: image,
    Env: env,
    Labels: labels,
    ExposedPorts: { [`${APP_PORT}/tcp`]: {} },
    HostConfig: {
      PortBindings: { [`${APP_PORT}/tcp`]: [{ HostIp: '127.0.0.1', HostPort: String(port) }] },
      Ulimits: hostUlimits(),
      Memory: 64 * 1024 * 1024,
      NanoCpus: 500_000_000,
      ...(opts.volume && { Binds: [`${opts.volume}:/data`] }),
    },
  });
  return { container, port, url: `http://127.0.0.1:${port}` };
}

it('runs the test image with the ulimits, publishing its port on 127.0.0.1, and serves back its env and secrets', async () => {
  const { docker } = engine;
  const { container, url, port } = await runApp(docker, APP_IMAGE_1, ['GREETING=hello world', 'MULTI=a\nb']);
  // A secret file as Core puts them: into the created container, before it starts.
  const pack = tar.pack();
  pack.entry({ name: 'run/secrets/db-password', mode: 0o400 }, 's3cr3t value');
  pack.finalize();
  await container.putArchive(pack as unknown as NodeJS.ReadableStream, { path: '/' });
  await container.start();

  expect(await waitUntilAnswers(url + '/')).toBe('core-test-app 1\n');
  const env = await readEnv(url);
  expect(env.GREETING).toBe('hello world');
  expect(env.MULTI).toBe('a\nb');
  expect(env.APP_VERSION).toBe('1');
  expect(await readSecrets(url)).toEqual({ 'db-password': { mode: '400', content: 's3cr3t value' } });

  const inspected = await container.inspect();
  expect(inspected.HostConfig.Ulimits).toEqual(
    expect.arrayContaining([expect.objectContaining({ Name: expect.stringMatching(/nofile$/i), Soft: 1024 })]),
  );
  expect(inspected.HostConfig.Memory).toBe(64 * 1024 * 1024);
  expect(inspected.NetworkSettings.Ports[`${APP_PORT}/tcp`]).toEqual([{ HostIp: '127.0.0.1', HostPort: String(port) }]);

  // TERM ends it at once (no wait for the engine's kill after its 10 s timeout).
  const before = Date.now();
  await container.stop({ t: 10 });
  expect(Date.now() - before).toBeLessThan(5_000);
  expect((await container.inspect()).State.ExitCode).toBe(0);
});

it('the second image differs; /cgi-bin/exit ends the container with its code; a volume keeps what was written', async () => {
  const { docker } = engine;
  const volume = (await docker.createVolume({
    Name: `core-test-${labels[TEST_LABEL]}`,
    Labels: labels,
  })) as unknown as {
    name?: string;
    Name?: string;
  };
  const volumeName = volume.Name ?? volume.name!;
  const first = await runApp(docker, APP_IMAGE_2, [], { volume: volumeName });
  await first.container.start();
  expect(await waitUntilAnswers(first.url + '/')).toBe('core-test-app 2\n');
  const written = await fetch(`${first.url}/cgi-bin/write?/data/mark`, { method: 'POST', body: 'kept' });
  expect(written.status).toBe(200);
  expect((await fetch(`${first.url}/cgi-bin/file?/data/absent`)).status).toBe(404);

  // The container may end before its answer is out (the connection then closes unanswered): its exit code tells.
  await fetch(`${first.url}/cgi-bin/exit?7`).catch(() => {});
  await waitFor(
    async () => {
      const state = (await first.container.inspect()).State;
      if (state.Running) throw new Error('still running');
      expect(state.ExitCode).toBe(7);
    },
    { timeoutMs: 10_000, what: 'exit 7' },
  );

  const second = await runApp(docker, APP_IMAGE_1, [], { volume: volumeName });
  await second.container.start();
  expect(await waitUntilAnswers(`${second.url}/cgi-bin/file?/data/mark`)).toBe('kept');

  const removed = await removeByLabel(docker, labels);
  expect(removed.containers).toBeGreaterThanOrEqual(3);
  expect(removed.volumes).toBe(1);
  expect(
    await docker.listContainers({
      all: true,
      filters: JSON.stringify({ label: [`${TEST_LABEL}=${labels[TEST_LABEL]}`] }),
    }),
  ).toEqual([]);
});

it('an engine of its own stops (calls fail) and comes back on the same DOCKER_HOST', async () => {
  const own = await startEngine();
  try {
    await own.docker.ping();
    await own.stop();
    await expect(own.docker.ping()).rejects.toThrow();
    await own.start();
    await own.docker.ping();
    expect((await own.docker.listImages({ filters: JSON.stringify({ reference: [APP_IMAGE_1] }) })).length).toBe(1);
  } finally {
    await own.close();
  }
});

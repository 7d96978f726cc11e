/**
 * Once per run of the engine tests (vitest.config.ts adds it when CORE_TEST_ENGINE is set): the engine every
 * file shares (with `podman`, a podman service started here; otherwise the DOCKER_HOST given), named to the
 * test workers as CORE_TEST_DOCKER_HOST, with the test images imported. Its teardown removes everything labelled
 * by the fixture (TEST_LABEL), the images included, and stops the service.
 */
import { ENGINE_SETTING, ensureTestImages, hasPodman, removeByLabel, startEngine, TEST_LABEL } from './fixture';

export default async function setup() {
  if (ENGINE_SETTING === 'podman' && !hasPodman())
    throw new Error('CORE_TEST_ENGINE=podman but podman is not installed (apt-get install podman busybox-static runc)');
  const engine = await startEngine();
  await ensureTestImages(engine.docker);
  process.env.CORE_TEST_DOCKER_HOST = engine.dockerHost;
  return async () => {
    await removeByLabel(engine.docker, { [TEST_LABEL]: '' }, { images: true });
    await engine.close();
  };
}

/**
 * Once per run of the engine tests (vitest.config.ts adds it when CORE_TEST_ENGINE is set): the engine every
 * file shares (with `podman`, a podman service started here; otherwise the DOCKER_HOST given), named to the
 * test workers as CORE_TEST_DOCKER_HOST, with the test images imported. Its teardown removes what the run's tests
 * created themselves (RUN_LABEL) and the test images no other run uses, and stops the service.
 */
import { ENGINE_SETTING, hasPodman, removeByLabel, removeTestImages, RUN_ID, RUN_LABEL, startEngine } from './fixture';

export default async function setup() {
  if (ENGINE_SETTING === 'podman' && !hasPodman())
    throw new Error('CORE_TEST_ENGINE=podman but podman is not installed (apt-get install podman busybox-static runc)');
  // RUN_ID is in process.env (CORE_TEST_RUN_ID) since the fixture loaded: the workers label with it too.
  const engine = await startEngine(); // with the test images
  process.env.CORE_TEST_DOCKER_HOST = engine.dockerHost;
  return async () => {
    await removeByLabel(engine.docker, { [RUN_LABEL]: RUN_ID });
    await removeTestImages(engine.docker);
    await engine.close();
  };
}

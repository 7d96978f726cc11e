/** POST /api/v1/deployments/{id}/restart (admin). */
import { restartDeployment } from '../../../domain/deployments';
import { operationRoute } from './operation';

export default operationRoute(
  'restart',
  'Admin. Restarts the container; when a bound or mounted secret changed since it was created (observed.needs_restart) ' +
    'the container is re-created with the new values. 409 when the deployment is stopped, 503 when the engine is unreachable.',
  restartDeployment,
);

/** POST /api/v1/deployments/{id}/start (admin). */
import { startDeployment } from '../../../domain/deployments';
import { operationRoute } from './operation';

export default operationRoute(
  'start',
  'Admin. Desired state becomes running; the reconciler creates or starts the container. 503 when the engine is unreachable.',
  startDeployment,
);

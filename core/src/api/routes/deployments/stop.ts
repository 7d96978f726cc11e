/** POST /api/v1/deployments/{id}/stop (admin). */
import { stopDeployment } from '../../../domain/deployments';
import { operationRoute } from './operation';

export default operationRoute(
  'stop',
  'Admin. Desired state becomes stopped; the container is stopped and kept (with its volumes). 503 when the engine is unreachable.',
  stopDeployment,
);

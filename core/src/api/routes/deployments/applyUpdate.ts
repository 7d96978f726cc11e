/** POST /api/v1/deployments/{id}/apply-update (admin). */
import { applyTemplateUpdate } from '../../../domain/deployments';
import { operationRoute } from './operation';

export default operationRoute(
  'apply-update',
  'Admin. Deploys the version of the template last synced from the Hub (observed.update_available): the snapshot is ' +
    'replaced and the container re-created with it. Nothing happens when there is no update; 409 when the template left the catalog.',
  applyTemplateUpdate,
);

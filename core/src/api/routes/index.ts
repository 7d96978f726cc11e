/**
 * Every API route, one per file (its zod request/response beside it). A route without `security`
 * is public: the authentication middleware skips it (see app.ts).
 */
import type { CoreContext } from '../../context';
import type { Router } from '../hono';
import authConfig from './auth/config';
import login from './auth/login';
import logout from './auth/logout';
import me from './auth/me';
import refresh from './auth/refresh';
import deleteSecret from './secrets/delete';
import listSecrets from './secrets/list';
import putSecret from './secrets/put';
import readSecret from './secrets/read';
import deleteOidc from './settings/deleteOidc';
import getSettings from './settings/get';
import putOidc from './settings/putOidc';
import tokenAudit from './tokens/audit';
import createToken from './tokens/create';
import listTokens from './tokens/list';
import reissueToken from './tokens/reissue';
import revokeToken from './tokens/revoke';
import createUser from './users/create';
import deleteUser from './users/delete';
import listBlocked from './blocked/list';
import readmitBlocked from './blocked/readmit';
import getUser from './users/get';
import listUsers from './users/list';
import updateUser from './users/update';
import getTemplate from './catalog/get';
import listTemplates from './catalog/list';
import createDeployment from './deployments/create';
import deleteDeployment from './deployments/delete';
import getDeployment from './deployments/get';
import listDeployments from './deployments/list';
import updateDeployment from './deployments/update';
import startDeployment from './deployments/start';
import stopDeployment from './deployments/stop';
import restartDeployment from './deployments/restart';
import applyDeploymentUpdate from './deployments/applyUpdate';
import deploymentLogs from './deployments/logs';
import deleteHubSettings from './hub/delete';
import getHubSettings from './hub/get';
import putHubSettings from './hub/put';
import syncCatalog from './hub/sync';
import mcpCalls from './mcp/calls';
import mcpEndpoint from './mcp/endpoint';
import listActivity from './activity/list';
import getOverview from './overview/get';
import listCategories from './catalog/categories';

const ROUTES: ((app: Router, core: CoreContext) => unknown)[] = [
  authConfig,
  login,
  refresh,
  logout,
  me,
  listUsers,
  getUser,
  createUser,
  updateUser,
  deleteUser,
  listBlocked,
  readmitBlocked,
  listTokens,
  createToken,
  reissueToken,
  revokeToken,
  tokenAudit,
  listSecrets,
  readSecret,
  putSecret,
  deleteSecret,
  getSettings,
  putOidc,
  deleteOidc,
  // Core ↔ Hub (issue 11)
  getHubSettings,
  putHubSettings,
  deleteHubSettings,
  syncCatalog,
  listCategories,
  listTemplates,
  getTemplate,
  listDeployments,
  getDeployment,
  createDeployment,
  updateDeployment,
  startDeployment,
  stopDeployment,
  restartDeployment,
  applyDeploymentUpdate,
  deploymentLogs,
  deleteDeployment,
  mcpCalls,
  mcpEndpoint,
  // issue 21
  listActivity,
  getOverview,
];

export function registerRoutes(app: Router, core: CoreContext) {
  for (const register of ROUTES) register(app, core);
}

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
import getUser from './users/get';
import listUsers from './users/list';
import updateUser from './users/update';

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
];

export function registerRoutes(app: Router, core: CoreContext) {
  for (const register of ROUTES) register(app, core);
}

import { createTRPCRouter } from '../../trpc';
import { createTokenProcedure } from './createToken';
import { listTokensProcedure } from './listTokens';
import { revokeTokenProcedure } from './revokeToken';
import { rotateTokenProcedure } from './rotateToken';

/** Personal access tokens (svp_) for the MCP proxy: /api/v1/account/tokens. */
export const tokensRouter = createTRPCRouter({
  list: listTokensProcedure,
  create: createTokenProcedure,
  rotate: rotateTokenProcedure,
  revoke: revokeTokenProcedure,
});

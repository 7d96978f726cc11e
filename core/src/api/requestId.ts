/** The request id of every answer (X-Request-Id): the caller's (or its load balancer's) when it is sane, else new. */
import { withHeader } from '@shared/ops';

/** The Hub's rule, shared: a plain token of sane length (@shared/logger). */
export { requestIdFrom as requestIdOf } from '@shared/logger';

/** A handler's own Response (e.g. the MCP transport's) may lack the header set on the context: add it. */
export function ensureRequestIdHeader(res: Response, requestId: string): Response {
  return res.headers.get('x-request-id') === requestId ? res : withHeader(res, 'X-Request-Id', requestId);
}

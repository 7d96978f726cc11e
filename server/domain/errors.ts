/**
 * The domain's one error, shared with Core (@shared/ops ServiceError): rules throw it with a code from the
 * closed set and a message written for the caller. It knows nothing of HTTP or tRPC; server/api/errors.ts
 * maps it to both through the one table (WIRE_CODE).
 */
import { ServiceError } from '@shared/ops';

export { ServiceError, type ServiceErrorCode, type ServiceErrorOptions } from '@shared/ops';

export function invalid(message: string): never {
  throw new ServiceError('invalid', message);
}
export function unauthenticated(message: string, reason?: string): never {
  throw new ServiceError('unauthenticated', message, { reason });
}
export function forbidden(message: string, reason?: string): never {
  throw new ServiceError('forbidden', message, { reason });
}
export function notFound(message: string): never {
  throw new ServiceError('not_found', message);
}
export function conflict(message: string): never {
  throw new ServiceError('conflict', message);
}

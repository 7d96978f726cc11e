/**
 * The domain's one error: rules throw it with a code from a small closed set and a message written for
 * the caller. It knows nothing of HTTP or tRPC; server/api/errors.ts maps it to both (one status table).
 */
export type DomainErrorCode =
  'invalid' | 'unauthenticated' | 'forbidden' | 'not_found' | 'conflict' | 'too_large' | 'rate_limited';

export interface DomainErrorOptions {
  /** rate_limited: when to try again. */
  retryAfterSeconds?: number;
  /** A machine-readable detail beside the code (e.g. why a personal access token was refused). */
  reason?: string;
  cause?: unknown;
}

export class DomainError extends Error {
  override readonly name = 'DomainError';
  readonly retryAfterSeconds?: number;
  readonly reason?: string;

  constructor(
    readonly code: DomainErrorCode,
    message: string,
    opts: DomainErrorOptions = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.reason = opts.reason;
  }
}

export function invalid(message: string): never {
  throw new DomainError('invalid', message);
}
export function unauthenticated(message: string, reason?: string): never {
  throw new DomainError('unauthenticated', message, { reason });
}
export function forbidden(message: string, reason?: string): never {
  throw new DomainError('forbidden', message, { reason });
}
export function notFound(message: string): never {
  throw new DomainError('not_found', message);
}
export function conflict(message: string): never {
  throw new DomainError('conflict', message);
}

/**
 * The one error model of the Hub and Core (docs/errors-and-packages.md): the error both domains throw, with
 * one closed code set and one table from it to the wire codes (ERROR_STATUS), the transport's own refusals,
 * and one wording of validation failures. Nothing here knows HTTP frameworks, tRPC or either service.
 */
import type { ErrorCode, ErrorIssue } from './errors';

/** What went wrong, in the domain's words; WIRE_CODE gives the answer's code (and so its status). */
export type ServiceErrorCode =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'too_large'
  | 'rate_limited'
  | 'unavailable'
  | 'bad_gateway'
  | 'internal';

/** The one table: domain code → the wire's code (tRPC's names, ERROR_STATUS gives the status). */
export const WIRE_CODE: Record<ServiceErrorCode, ErrorCode> = {
  invalid: 'BAD_REQUEST',
  unauthenticated: 'UNAUTHORIZED',
  forbidden: 'FORBIDDEN',
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  too_large: 'PAYLOAD_TOO_LARGE',
  rate_limited: 'TOO_MANY_REQUESTS',
  unavailable: 'SERVICE_UNAVAILABLE',
  bad_gateway: 'BAD_GATEWAY',
  internal: 'INTERNAL_SERVER_ERROR',
};

export interface ServiceErrorOptions {
  /** rate_limited, unavailable: when to try again (Retry-After). */
  retryAfterSeconds?: number;
  /** A machine-readable detail beside the code, sent in the body (e.g. `revoked`, `key_refused`). */
  reason?: string;
  /** Validation failures: each offending field and what is wrong with it. */
  issues?: readonly ErrorIssue[];
  /** The id of the credential or record the refusal is about, for the service's audit log; never sent. */
  subject?: string;
  cause?: unknown;
}

/** The domain's one error: a code from the closed set and a message written for the caller. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  readonly retryAfterSeconds?: number;
  readonly reason?: string;
  readonly issues?: readonly ErrorIssue[];
  readonly subject?: string;

  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    opts: ServiceErrorOptions = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.retryAfterSeconds = opts.retryAfterSeconds;
    this.reason = opts.reason;
    this.issues = opts.issues;
    this.subject = opts.subject;
  }
}

/** A refusal of the transport itself (no such route, unparsable body, wrong media type or method, too large). */
export class TransportError extends Error {
  override readonly name = 'TransportError';
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A zod issue as far as the model reads it (zod itself is not a dependency of this package). */
export interface IssueLike {
  path?: readonly PropertyKey[];
  message: string;
  code?: string;
  /** zod's `unrecognized_keys`: the unknown field names. */
  keys?: readonly string[];
}

const MAX_PARTS = 5;

/**
 * The one wording of validation failures on every surface of both services:
 * "Invalid input: name: Too small: expected string to have >=1 characters; unknown fields: a, b".
 * Each part names its field; unknown keys are named with their path; more than five parts are counted.
 */
export function describeIssues(issues: readonly IssueLike[]): string {
  const parts = issues.map((issue) => {
    const at = (issue.path ?? []).map(String).join('.');
    if (issue.code === 'unrecognized_keys' && issue.keys) {
      const names = issue.keys.map((k) => (at ? `${at}.${k}` : k)).join(', ');
      return `unknown field${issue.keys.length > 1 ? 's' : ''}: ${names}`;
    }
    return at ? `${at}: ${issue.message}` : issue.message;
  });
  const more = parts.length > MAX_PARTS ? ` (and ${parts.length - MAX_PARTS} more)` : '';
  return `Invalid input: ${parts.slice(0, MAX_PARTS).join('; ')}${more}`;
}

/**
 * Issues as they go on the wire: the path as strings and numbers, bigints as strings (JSON has none), and
 * never the `input` (it may hold what the caller should not see echoed, a secret included).
 */
export function wireIssues(issues: readonly IssueLike[]): ErrorIssue[] {
  return issues.map((issue) => {
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(issue)) {
      if (key === 'input') continue;
      out[key] = typeof value === 'bigint' ? String(value) : value;
    }
    out.path = (issue.path ?? []).map((p) => (typeof p === 'number' ? p : String(p)));
    return out as unknown as ErrorIssue;
  });
}

/** Whether `err` is a zod validation error (by its shape: a service's zod version is its own). */
export function isValidationError(err: unknown): err is Error & { issues: IssueLike[] } {
  return err instanceof Error && err.name === 'ZodError' && Array.isArray((err as { issues?: unknown }).issues);
}

/** A validation failure as the domain's error: one wording, the issues attached. */
export function validationError(issues: readonly IssueLike[], cause?: unknown): ServiceError {
  return new ServiceError('invalid', describeIssues(issues), { issues: wireIssues(issues), cause });
}

/**
 * The one error shape of the Hub and Core (docs/errors-and-packages.md): the body's `code` (tRPC's names) and
 * the HTTP status of each, and the body itself. Each service's mapper decides which code a failure gets.
 */
export const ERROR_STATUS = {
  PARSE_ERROR: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_SUPPORTED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  TOO_MANY_REQUESTS: 429,
  INTERNAL_SERVER_ERROR: 500,
  BAD_GATEWAY: 502,
  SERVICE_UNAVAILABLE: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_STATUS;
export const ERROR_CODES = Object.keys(ERROR_STATUS) as [ErrorCode, ...ErrorCode[]];

export interface ErrorIssue {
  path?: readonly PropertyKey[];
  message: string;
}

/** The JSON body of every error answer. */
export interface ErrorBody {
  code: ErrorCode;
  message: string;
  /** The request's id, as in the answer's X-Request-Id header. */
  request_id: string;
  /** A machine-readable detail of some of the Hub's refusals. */
  reason?: string;
  /** Validation failures: each offending field. */
  issues?: readonly ErrorIssue[];
}

/** `res` with one more header; a Response whose headers are immutable (a fetched one) is copied. */
export function withHeader(res: Response, name: string, value: string): Response {
  try {
    res.headers.set(name, value);
    return res;
  } catch {
    const copy = new Response(res.body, res);
    copy.headers.set(name, value);
    return copy;
  }
}

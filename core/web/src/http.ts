/**
 * The one place the browser talks to Core's API: JSON in and out, Core's `{code, message, request_id}` errors as ApiError,
 * and the X-Core-Warning header (the temporary admin's) handed to whoever listens.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** From Retry-After on a 429. */
    readonly retryAfterSeconds: number | null = null,
    /** Core's id of the failed request (its error body's request_id), for a report to an operator. */
    readonly requestId: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type WarningListener = (warning: string | null) => void;
let warningListener: WarningListener = () => {};
export function onCoreWarning(listener: WarningListener) {
  warningListener = listener;
}

export interface RequestOptions {
  body?: unknown;
  token?: string;
  query?: Record<string, string | number | undefined>;
  headers?: Record<string, string>;
}

export async function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
  const url = new URL(`/api/v1${path}`, location.origin);
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.body !== undefined) headers['content-type'] = 'application/json';
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;

  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  } catch {
    throw new ApiError(0, 'network', 'Core cannot be reached. Check your connection and try again.');
  }
  if (opts.token) warningListener(res.headers.get('x-core-warning'));
  if (res.status === 204) return undefined as T;
  const data: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const err = (data ?? {}) as { code?: unknown; message?: unknown; request_id?: unknown };
    throw new ApiError(
      res.status,
      typeof err.code === 'string' ? err.code : 'http_' + res.status,
      typeof err.message === 'string' ? err.message : `Core answered ${res.status}.`,
      Number(res.headers.get('retry-after')) || null,
      typeof err.request_id === 'string' ? err.request_id : res.headers.get('x-request-id'),
    );
  }
  return data as T;
}

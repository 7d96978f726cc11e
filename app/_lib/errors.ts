/** Messages and field errors out of tRPC errors, for toasts and inline form errors. */
export interface FieldIssue {
  path?: (string | number)[];
  message: string;
}

interface ErrorLike {
  message?: string;
  data?: { code?: string; httpStatus?: number; issues?: FieldIssue[] } | null;
}

export function errorMessage(err: unknown): string {
  const e = err as ErrorLike | null;
  if (!e) return 'Something went wrong';
  if (e.data?.httpStatus === 401) return 'Your session has ended: sign in again';
  return e.message || 'Something went wrong';
}

/** field name ("ports.0.containerPort" → "ports") → message; the first issue of each field wins. */
export function fieldErrors(err: unknown): Record<string, string> {
  const issues = (err as ErrorLike | null)?.data?.issues ?? [];
  const out: Record<string, string> = {};
  for (const issue of issues) {
    const path = (issue.path ?? []).map(String);
    const full = path.join('.');
    const top = path[0] ?? '';
    if (full && !(full in out)) out[full] = issue.message;
    if (top && !(top in out)) out[top] = path.length > 1 ? `${path.slice(1).join('.')}: ${issue.message}` : issue.message;
  }
  return out;
}

export function isUnauthorized(err: unknown) {
  return (err as ErrorLike | null)?.data?.httpStatus === 401;
}

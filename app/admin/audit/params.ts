/** The audit log's filters and page live in the URL: shareable, kept by reload and Back, readable without JavaScript. */
export type SearchParams = Record<string, string | string[] | undefined>;

export const AUDIT_PAGE_SIZE = 25;

export interface AuditParams {
  actor?: string;
  action?: string;
  target_type?: string;
  target?: string;
  /** YYYY-MM-DD (UTC), inclusive. */
  from?: string;
  to?: string;
  page: number;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const validDay = (s: string | undefined) =>
  s && DAY.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) ? s : undefined;

export function readAuditParams(params: SearchParams): { params: AuditParams; badDates: string[] } {
  const one = (k: string) => {
    const v = params[k];
    return (Array.isArray(v) ? v[0] : v)?.trim() || undefined;
  };
  const page = Number(one('page') ?? '1');
  const badDates = (['from', 'to'] as const).filter((k) => one(k) !== undefined && !validDay(one(k)));
  return {
    params: {
      actor: one('actor'),
      action: one('action'),
      target_type: one('target_type'),
      target: one('target'),
      from: validDay(one('from')),
      to: validDay(one('to')),
      page: Number.isInteger(page) && page >= 1 && page <= 1_000_000 ? page : 1,
    },
    badDates,
  };
}

export function auditHref(base: AuditParams, change: Partial<AuditParams> = {}) {
  const next = { ...base, ...change };
  const q = new URLSearchParams();
  for (const k of ['actor', 'action', 'target_type', 'target', 'from', 'to'] as const) {
    const v = next[k];
    if (v) q.set(k, v);
  }
  if (next.page > 1) q.set('page', String(next.page));
  const s = q.toString();
  return s ? `/admin/audit?${s}` : '/admin/audit';
}

/** The procedure's input: whole UTC days, `to` inclusive. */
export function auditInput(p: AuditParams) {
  const nextDay = (d: string) => new Date(Date.parse(`${d}T00:00:00Z`) + 86_400_000).toISOString();
  return {
    actor: p.actor,
    action: p.action,
    target_type: p.target_type,
    target: p.target,
    since: p.from ? `${p.from}T00:00:00Z` : undefined,
    until: p.to ? nextDay(p.to) : undefined,
    page: p.page,
    limit: AUDIT_PAGE_SIZE,
  };
}

export const hasFilters = (p: AuditParams) =>
  Boolean(p.actor || p.action || p.target_type || p.target || p.from || p.to);

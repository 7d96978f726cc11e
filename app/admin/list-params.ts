/**
 * The admin lists' state lives in the URL (shareable, kept by Back and by Edit → Save → list).
 * One reader per list turns the query string into the exact input of its tRPC query: the page (server,
 * prefetch) and the client component call the same function, so the prefetched query is the one the client
 * asks for and hydration hits. Server-safe: no hooks here.
 */

export type RawParams = Record<string, string | string[] | undefined>;

export const TEMPLATES_LIMIT = 20;
export const USERS_LIMIT = 25;
export const ORGANIZATIONS_LIMIT = 25;
export const API_KEYS_LIMIT = 25;

const ROLES = ['user', 'admin', 'superadmin'] as const;
const ORG_STATUSES = ['active', 'suspended'] as const;
const ORG_TIERS = ['free', 'pro', 'enterprise'] as const;
const KEY_STATUSES = ['active', 'revoked'] as const;

function one(raw: RawParams, key: string): string | undefined {
  const v = raw[key];
  const s = (Array.isArray(v) ? v[0] : v)?.trim();
  return s ? s : undefined;
}

function text(raw: RawParams, key: string, max: number): string | undefined {
  return one(raw, key)?.slice(0, max);
}

function pageOf(raw: RawParams): number {
  const s = one(raw, 'page');
  const n = s && /^\d{1,7}$/.test(s) ? Number(s) : 1;
  return n >= 1 ? n : 1;
}

function choice<T extends string>(raw: RawParams, key: string, allowed: readonly T[]): T | undefined {
  const s = one(raw, key);
  return allowed.includes(s as T) ? (s as T) : undefined;
}

/** Only defined keys, so the query key is the same however the object was built. */
function defined<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function templatesInput(raw: RawParams) {
  return defined({ search: text(raw, 'search', 200), page: pageOf(raw), limit: TEMPLATES_LIMIT });
}

export function usersInput(raw: RawParams) {
  return defined({
    search: text(raw, 'search', 320),
    role: choice(raw, 'role', ROLES),
    page: pageOf(raw),
    limit: USERS_LIMIT,
  });
}

/** How many superadmins exist (pagination.total): the last one cannot be demoted or deleted, so the page does not offer it. */
export const SUPERADMINS_INPUT = { role: 'superadmin' as const, page: 1, limit: 1 };

export function organizationsInput(raw: RawParams) {
  return defined({
    search: text(raw, 'search', 200),
    status: choice(raw, 'status', ORG_STATUSES),
    tier: choice(raw, 'tier', ORG_TIERS),
    page: pageOf(raw),
    limit: ORGANIZATIONS_LIMIT,
  });
}

/** Active keys unless the URL says otherwise (?status=all shows every key). */
export function apiKeysInput(raw: RawParams) {
  const s = one(raw, 'status');
  const status = s === 'all' ? undefined : (choice(raw, 'status', KEY_STATUSES) ?? 'active');
  return defined({ status, page: pageOf(raw), limit: API_KEYS_LIMIT });
}

/** The categories list is not paged: its text filter narrows the rows in the browser. */
export function categoriesFilter(raw: RawParams) {
  return { search: text(raw, 'search', 200) ?? '' };
}

/** The list's URL with `changes` applied (undefined or '' removes a key; page 1 is the default and is left out). */
export function listHref(
  path: string,
  current: URLSearchParams | RawParams,
  changes: Record<string, string | number | undefined>,
) {
  const params = new URLSearchParams();
  const entries =
    current instanceof URLSearchParams
      ? [...current.entries()]
      : Object.entries(current).flatMap(([k, v]) =>
          v === undefined ? [] : (Array.isArray(v) ? v : [v]).map((x) => [k, x] as [string, string]),
        );
  for (const [k, v] of entries) if (!(k in changes)) params.append(k, v);
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '' || (k === 'page' && Number(v) === 1)) continue;
    params.set(k, String(v));
  }
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** The templates list URL an edit page returns to, from its ?from= (only the list's own keys are kept). */
export function templatesReturnHref(from: string | null | undefined) {
  const raw = Object.fromEntries(new URLSearchParams(from ?? '').entries());
  const input = templatesInput(raw);
  return listHref('/admin/templates', {}, { search: input.search, page: input.page });
}

export const FLEET_LIMIT = 25;
const FRESHNESS_CHOICES = ['fresh', 'stale', 'never'] as const;

/** The fleet overview's instance health filters (admin overview and an organization admin's account page). */
export function fleetInput(raw: RawParams) {
  return defined({
    search: text(raw, 'search', 200),
    freshness: choice(raw, 'freshness', FRESHNESS_CHOICES),
    version: text(raw, 'version', 100),
    page: pageOf(raw),
    limit: FLEET_LIMIT,
  });
}

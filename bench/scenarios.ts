/**
 * The catalog scenarios of `npm run bench` (the Hub against the baseline, bench/baseline-server.mjs), the types every
 * scenario shares, and the response-parity check (the baseline's bodies equal the Hub's).
 */
import type { InstanceKeyCred } from './credentials';
import { cycle, type RequestSpec } from './load';
import type { Server } from './processes';
import type { Parity } from './report';
import type { OrgSeed } from './seed';

export interface Ctx {
  keys: InstanceKeyCred[];
  orgs: OrgSeed[];
  adminJwt: string;
  slugs: string[];
  since: string;
  /** ETag of the updates answer per organization, fetched just before the If-None-Match scenario. */
  etags: Map<string, string>;
  adminPath: string;
  adminNote?: string;
  hubBase: string;
}

export interface ScenarioDef {
  id: string;
  title: string;
  request: string;
  hub: () => RequestSpec;
  baseline: () => RequestSpec;
  expectHub: number[];
  /** Runs just before the scenario; a string is the reason it is not applicable. */
  prepare?: () => Promise<string | undefined>;
  note?: string;
  /** Measured against the bare server (same precomputed bytes) instead of the baseline. */
  againstBare?: true;
  /**
   * Fixed request lists instead of hub()/baseline() per request (edge scenarios): the load generator builds each
   * request once, so on two cores it takes as little CPU from the server it measures as it can.
   */
  fixed?: { hub: RequestSpec[]; baseline: RequestSpec[] };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

export function scenarios(ctx: Ctx, hubBase: string): ScenarioDef[] {
  const key = cycle(ctx.keys);
  const slug = cycle(ctx.slugs);
  const keyed = (p: string) => () => ({ path: p, headers: bearer(key().secret) });
  const updatesPath = `/api/v1/catalog/templates/updates?since=${encodeURIComponent(ctx.since)}`;
  const getBySlug = () => ({ path: `/api/v1/catalog/templates/${slug()}`, headers: bearer(key().secret) });
  const admin = () => ({ path: ctx.adminPath, headers: bearer(ctx.adminJwt) });
  return [
    {
      id: 'anon-list',
      title: 'Anonymous list',
      request: 'GET /api/v1/catalog/templates',
      hub: () => ({ path: '/api/v1/catalog/templates' }),
      baseline: () => ({ path: '/api/v1/catalog/templates' }),
      expectHub: [200],
    },
    {
      id: 'key-list',
      title: 'Instance-key list',
      request: 'GET /api/v1/catalog/templates (svh_)',
      hub: keyed('/api/v1/catalog/templates'),
      baseline: keyed('/api/v1/catalog/templates'),
      expectHub: [200],
    },
    {
      id: 'key-search',
      title: 'Instance-key list, search + tags',
      request: 'GET /api/v1/catalog/templates?search=server&tags=gpu,llm (svh_)',
      hub: keyed('/api/v1/catalog/templates?search=server&tags=gpu,llm'),
      baseline: keyed('/api/v1/catalog/templates?search=server&tags=gpu,llm'),
      expectHub: [200],
    },
    {
      id: 'key-get',
      title: 'Instance-key get by slug (download count)',
      request: 'GET /api/v1/catalog/templates/{slug} (svh_, rotating slugs)',
      hub: getBySlug,
      baseline: getBySlug,
      expectHub: [200],
    },
    {
      id: 'updates',
      title: 'Updates poll, nothing changed',
      request: `GET ${updatesPath} (svh_)`,
      hub: keyed(updatesPath),
      baseline: keyed(updatesPath),
      expectHub: [200],
    },
    {
      id: 'updates-inm',
      title: 'Updates poll with If-None-Match',
      request: `GET ${updatesPath} (svh_, If-None-Match: the ETag of the caller's organization)`,
      hub: () => {
        const k = key();
        return { path: updatesPath, headers: { ...bearer(k.secret), 'if-none-match': ctx.etags.get(k.orgId) ?? '' } };
      },
      baseline: () => {
        const k = key();
        return { path: updatesPath, headers: { ...bearer(k.secret), 'if-none-match': ctx.etags.get(k.orgId) ?? '' } };
      },
      expectHub: [200, 304],
      prepare: async () => {
        ctx.etags.clear();
        for (const org of ctx.orgs) {
          const k = ctx.keys.find((key) => key.orgId === org.id)!;
          const res = await fetchJson(hubBase, { path: updatesPath, headers: bearer(k.secret) });
          const etag = res.headers.get('etag');
          if (!etag) return `the Hub sends no ETag on the updates answer (HTTP ${res.status})`;
          ctx.etags.set(org.id, etag);
        }
        return undefined;
      },
      note: 'the baseline has no ETags and answers 200 in full',
    },
    {
      id: 'categories',
      title: 'Categories',
      request: 'GET /api/v1/catalog/categories (svh_)',
      hub: keyed('/api/v1/catalog/categories'),
      baseline: keyed('/api/v1/catalog/categories'),
      expectHub: [200],
    },
    {
      id: 'admin-list',
      title: 'Admin template list',
      request: `GET ${ctx.adminPath} (admin JWT)`,
      hub: admin,
      baseline: admin,
      expectHub: [200],
      note: ctx.adminNote,
    },
  ];
}

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) {
      if (k === 'checked_at' || k === 'download_count') continue; // a clock, and a counter both servers increment
      out[k] = normalize((value as Record<string, unknown>)[k]);
    }
    return out;
  }
  return value;
}

function firstDifference(a: unknown, b: unknown, at = ''): string | null {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (a && b && typeof a === 'object' && typeof b === 'object' && Array.isArray(a) === Array.isArray(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) {
      const d = firstDifference((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${at}/${k}`);
      if (d) return d;
    }
  }
  const show = (v: unknown) => (v === undefined ? 'missing' : JSON.stringify(v)?.slice(0, 80));
  return `${at || '/'}: Hub ${show(a)} vs baseline ${show(b)}`;
}

export async function fetchJson(base: string, spec: RequestSpec) {
  const res = await fetch(base + spec.path, { method: spec.method ?? 'GET', headers: spec.headers, body: spec.body });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers };
}

export async function checkParity(defs: ScenarioDef[], hub: Server, baseline: Server): Promise<Parity[]> {
  const out: Parity[] = [];
  for (const d of defs) {
    if (d.id === 'updates-inm' || d.againstBare) continue;
    const spec = d.hub();
    const [h, b] = [await fetchJson(hub.base, spec), await fetchJson(baseline.base, spec)];
    if (h.status !== 200 || b.status !== 200) {
      out.push({
        scenario: d.title,
        ok: false,
        detail: `status ${h.status} (Hub) vs ${b.status} (baseline): ${JSON.stringify(h.status !== 200 ? h.body : b.body).slice(0, 200)}`,
      });
      continue;
    }
    const diff = firstDifference(normalize(h.body), normalize(b.body));
    out.push({ scenario: d.title, ok: diff === null, detail: diff ?? '' });
  }
  return out;
}

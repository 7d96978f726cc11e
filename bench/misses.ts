/** The cache-miss scenarios of `npm run bench` (issue 14): a Hub with its response cache off, every answer computed. */
import type { InstanceKeyCred } from './credentials';
import { cycle, runLoad, type RequestSpec } from './load';
import type { MissResult } from './report';
import { bearer, type Ctx } from './scenarios';

export interface MissDef {
  id: string;
  title: string;
  request: string;
  next: () => RequestSpec;
}

/**
 * The catalog paths whose answers the response cache would otherwise hold, measured against a Hub started
 * with the response cache off (HUB_RESPONSE_CACHE_MB=0), so every answer is computed: the cost of a cache
 * miss, on one connection (latency) and at full concurrency (throughput). (The cache key is built from the
 * parameters a procedure reads, so an extra query parameter no longer makes a request distinct.)
 */
export function missScenarios(
  ctx: Ctx,
  acmeKeys: InstanceKeyCred[],
  brands: string[],
  visiblePages: number,
  recent: string,
): MissDef[] {
  const key = cycle(ctx.keys);
  const acmeKey = cycle(acmeKeys);
  const brand = cycle(brands);
  const slug = cycle(ctx.slugs);
  let pageSeed = 1;
  // Pages spread over the whole catalog (a multiplicative walk, not random: the same sequence every run).
  const page = () => 1 + ((pageSeed = (pageSeed * 7919) % 104_729) % visiblePages);
  const acme = (p: string) => () => ({ path: p, headers: bearer(acmeKey().secret) });
  const keyed = (p: string) => () => ({ path: p, headers: bearer(key().secret) });
  return [
    {
      id: 'miss-search-rare',
      title: 'Search, rare term (one match)',
      request: 'GET /api/v1/catalog/templates?search={product name}',
      next: () => acme(`/api/v1/catalog/templates?search=${brand()}`)(),
    },
    {
      id: 'miss-search-common',
      title: 'Search, common term (≥ 10% of the catalog)',
      request: 'GET /api/v1/catalog/templates?search=server',
      next: keyed('/api/v1/catalog/templates?search=server'),
    },
    {
      id: 'miss-search-tags',
      title: 'Search + tags',
      request: 'GET /api/v1/catalog/templates?search=server&tags=gpu,llm',
      next: keyed('/api/v1/catalog/templates?search=server&tags=gpu,llm'),
    },
    {
      id: 'miss-deep-page',
      title: 'Pages spread over the catalog',
      request: `GET /api/v1/catalog/templates?page={1..${visiblePages}}`,
      next: () => acme(`/api/v1/catalog/templates?page=${page()}`)(),
    },
    {
      id: 'miss-get',
      title: 'Get by slug',
      request: 'GET /api/v1/catalog/templates/{slug}',
      next: () => keyed(`/api/v1/catalog/templates/${slug()}`)(),
    },
    {
      id: 'miss-updates',
      title: 'Updates since a recent time (about ten changes)',
      request: `GET /api/v1/catalog/templates/updates?since=${recent}`,
      next: keyed(`/api/v1/catalog/templates/updates?since=${encodeURIComponent(recent)}`),
    },
    {
      id: 'miss-categories',
      title: 'Categories (as right after a write)',
      request: 'GET /api/v1/catalog/categories',
      next: keyed('/api/v1/catalog/categories'),
    },
    {
      id: 'miss-admin-list',
      title: 'Admin template list (uncached)',
      request: `GET ${ctx.adminPath}`,
      next: () => ({ path: ctx.adminPath, headers: bearer(ctx.adminJwt) }),
    },
  ];
}

/** Each miss scenario on one connection (a request's own cost, `probes` requests), then `connections` for `durationSec`. */
export async function measureMisses(
  base: string,
  defs: MissDef[],
  opts: { probes: number; connections: number; durationSec: number; size: number },
  broken: string[],
  log: (message: string) => void,
): Promise<MissResult[]> {
  const { connections, size } = opts;
  const misses: MissResult[] = [];
  for (const m of defs) {
    const one = await runLoad({ base, connections: 1, amount: opts.probes, next: m.next, expect: [200] });
    const many = await runLoad({ base, connections, durationSec: opts.durationSec, next: m.next, expect: [200] });
    for (const [label, r] of [
      ['one connection', one],
      [`${connections} connections`, many],
    ] as const) {
      if (r.unexpected > Math.max(0, r.requests * 0.01))
        broken.push(`${m.title} (cache miss, ${label}) at ${size} templates answered ${JSON.stringify(r.statuses)}`);
    }
    log(
      `miss ${m.title}: one connection p50 ${one.p50.toFixed(2)} p99 ${one.p99.toFixed(2)} ms | ` +
        `${connections} connections ${many.rps.toFixed(0)} req/s`,
    );
    misses.push({ id: m.id, title: m.title, request: m.request, one, many });
  }
  return misses;
}

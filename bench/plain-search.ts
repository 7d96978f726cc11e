/**
 * The search mix as a careful plain implementation answers it, beside the Hub (issue 36: the mix's p99 ≤ 40 ms at
 * 100,000 templates). Each URL is one statement on one connection straight to PostgreSQL: no HTTP, no JSON, no count
 * kept between requests. The statement is what one writes first: the caller's visible matches of the term (and tags),
 * ranked by the Hub's tiers, the page joined to its template rows, and the exact total as a window count; a count
 * alone when the page is past the end, and the similar-names fallback when nothing matches. The same schema and
 * indexes as the Hub, the same URLs in the same order, the same callers in turn.
 *
 * Written by hand, not from the Hub's query builders, as the same-work servers are: what it costs is the database's
 * part of the work, and what the Hub adds (or saves by keeping a term's counts per catalog generation) is the rest.
 * `plainDisagreements` checks that it is the same work: the Hub's total and page for the same URLs.
 */
import type { Sql } from 'postgres';
import { percentile } from './load';
import type { MixCaller } from './search-mix';

const PAGE_SIZE = 50;

export interface PlainResult {
  requests: number;
  p50: number;
  p99: number;
  max: number;
}

interface Answer {
  total: number;
  ids: string[];
}

const escapeLike = (term: string) => term.replace(/[\\%_]/g, (c) => `\\${c}`);

function parse(url: string) {
  const params = new URLSearchParams(url);
  return {
    term: (params.get('search') ?? '').toLowerCase(),
    offset: (Number(params.get('page') ?? '1') - 1) * PAGE_SIZE,
    tags: (params.get('tags') ?? '').toLowerCase().split(',').filter(Boolean),
  };
}

/** Each URL in turn, timed from its first statement's start to its answer. */
export async function plainSearchMix(pg: Sql, urls: string[], callers: MixCaller[]): Promise<PlainResult> {
  const times: number[] = [];
  for (const [at, url] of urls.entries()) {
    const started = performance.now();
    await answer(pg, parse(url), callers[at % callers.length]!.org);
    times.push(performance.now() - started);
  }
  const sorted = Float64Array.from(times).sort();
  return { requests: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1)! };
}

/**
 * The same statements at full concurrency: `connections` at once, each taking the next URL from `start` on (where
 * the Hub's many-connection run goes on after its one-connection probes), for `seconds`. Statements a second: the
 * database's part of the mix's throughput, beside the Hub's requests a second.
 */
export async function plainSearchMixRate(
  pg: Sql,
  urls: string[],
  callers: MixCaller[],
  start: number,
  connections: number,
  seconds: number,
): Promise<number> {
  let next = start;
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < until) {
      const at = next++;
      await answer(pg, parse(urls[at % urls.length]!), callers[at % callers.length]!.org);
      done++;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: connections }, worker));
  return done / ((performance.now() - started) / 1000);
}

/** URLs (of the first `count`) where the plain answer's total or page differs from the Hub's at `base`. */
export async function plainDisagreements(
  pg: Sql,
  base: string,
  urls: string[],
  callers: MixCaller[],
  count: number,
): Promise<string[]> {
  const differing: string[] = [];
  for (const [at, url] of urls.slice(0, count).entries()) {
    const caller = callers[at % callers.length]!;
    const res = await fetch(`${base}/api/v1/catalog/templates?${url}`, { headers: caller.headers });
    const hub = (await res.json()) as { templates: { id: string }[]; pagination: { total: number } };
    const plain = await answer(pg, parse(url), caller.org);
    const ids = hub.templates.map((t) => t.id);
    if (hub.pagination.total !== plain.total || ids.join() !== plain.ids.join())
      differing.push(
        `${url} (${caller.org ?? 'anonymous'}): total ${hub.pagination.total} and ${ids.length} on the page from the Hub, ` +
          `${plain.total} and ${plain.ids.length} from plain SQL${ids.length === plain.ids.length ? ', not the same ones' : ''}`,
      );
  }
  return differing;
}

async function answer(pg: Sql, q: ReturnType<typeof parse>, org: string | null): Promise<Answer> {
  const { term, offset, tags } = q;
  const inside = `%${escapeLike(term)}%`;
  const prefix = `${escapeLike(term)}%`;
  const tag = `%\x1f${escapeLike(term)}\x1f%`;
  const open = pg`e.is_public and e.category_id = any(array(select id from categories where not is_private))`;
  const visible = org
    ? pg`(e.org_id = ${org} or (${open}) or e.category_id = any(array(
          select g.category_id from access_grants g join categories c on c.id = g.category_id
           where g.org_id = ${org} and c.is_private)))`
    : open;
  const tagged = tags.length ? pg`and e.tags && ${tags}::text[]` : pg``;
  // A page and its total; past the end of what matches, the count alone (the total still has to be told).
  const answerWith = async (where: ReturnType<Sql>, rank: ReturnType<Sql>): Promise<Answer> => {
    const rows = await pg<{ total: string; id: string }[]>`
      with page as (
        select e.template_id, count(*) over () as total, ${rank} as rank, e.search_name collate "C" as tie
          from catalog_entries e where ${where} and ${visible} ${tagged}
         order by rank, tie, e.template_id limit ${PAGE_SIZE} offset ${offset})
      select p.total, t.*, c.slug as category_slug, c.name as category_name
        from page p join templates t on t.id = p.template_id join categories c on c.id = t.category_id
       order by p.rank, p.tie, p.template_id`;
    if (rows.length > 0 || offset === 0) return { total: Number(rows[0]?.total ?? 0), ids: rows.map((r) => r.id) };
    const [{ n }] = (await pg`select count(*)::int as n from catalog_entries e
       where ${where} and ${visible} ${tagged}`) as unknown as [{ n: number }];
    return { total: n, ids: [] };
  };
  const found = await answerWith(
    pg`(e.search_name like ${inside} or e.search_description like ${inside} or e.search_tags like ${tag})`,
    pg`case when e.search_name like ${prefix} then 0 when e.search_name like ${inside} then 1
            when e.search_tags like ${tag} then 2 else 3 end`,
  );
  if (found.total > 0) return found;
  // Nothing matches: names similar to the term, most similar first.
  return answerWith(pg`${term} <% e.search_name`, pg`-similarity(${term}, e.search_name)`);
}

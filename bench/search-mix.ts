/**
 * The search mix of issue 36: what people type into the catalog's search box, as cache misses. 20,000 distinct
 * URLs (so no answer and few kept counts are reused), each a term of one of four kinds and a page:
 *
 *   word     a whole product name word (every template's first word is unique to it: one match)
 *   prefix   the first 4, 5, 6 or 7 letters of a name word or of a common word (what a search box sends while typing)
 *   number   a number: those the catalog's text holds (amd64 → "64") and ports and years it does not (no match:
 *            the similar-names fallback)
 *   common   a word found in 10–30% of the catalog (about 10,000–30,000 matches at 100,000 templates)
 *
 * A quarter of the URLs per kind. Pages: 1 for a whole word, else 1 half of the time and deeper for the rest (up to
 * page 100 of a common word); the answer's pagination.total is exact (the Hub counts every match). The terms come
 * from the seeded catalog itself (bench/seed.ts), read once per size. Callers rotate over every organization's
 * instance keys and anonymous requests, so each visibility scope asks.
 */
import type { Sql } from 'postgres';
import type { MissResult, SizeResult } from './report-types';

export type TermKind = 'word' | 'prefix' | 'number' | 'common';

export interface SearchMix {
  /** Distinct query strings (search, page, and for the tags variant 1–2 tags), in a fixed shuffled order. */
  urls: string[];
  urlsWithTags: string[];
  /** How many URLs of `urls` use each kind of term. */
  kinds: Record<TermKind, number>;
  commonWords: string[];
}

export const SEARCH_MIX_URLS = 20_000;

/** A small deterministic generator (the same mix every run for a catalog of the same size). */
function random(seed: number) {
  let s = seed;
  return () => (s = (s * 16_807) % 2_147_483_647) / 2_147_483_647;
}

/**
 * Words of the catalog's searchable text found in `from`–`to` of a sample of its entries. The common words
 * have about 19,000 matches at 100,000 templates; words in nearly every entry ("for" is in every description here)
 * are left out of the mix (docs/performance.md gives what they cost).
 */
async function commonWords(pg: Sql, from: number, to: number): Promise<string[]> {
  const rows = await pg<{ word: string }[]>`
    with sample as (select template_id, search_name || ' ' || search_description as text from catalog_entries
                     order by md5(template_id::text) limit 2000)
    select word from (select distinct template_id, word from sample, regexp_split_to_table(text, '[^a-z0-9]+') word) w
     where length(word) >= 3 group by word
    having count(*) between ${from}::float8 * (select count(*) from sample) and ${to}::float8 * (select count(*) from sample)
     order by word`;
  return rows.map((r) => r.word);
}

/** Builds the mix from the seeded catalog: name words from public templates (visible to every caller). */
export async function buildSearchMix(pg: Sql, count = SEARCH_MIX_URLS): Promise<SearchMix> {
  const common = await commonWords(pg, 0.1, 0.3);
  const names = (
    await pg<{ word: string }[]>`
      select lower(split_part(t.name, ' ', 1)) as word from templates t join categories c on c.id = t.category_id
       where t.is_public and not c.is_private order by md5(t.id::text) limit 5000`
  ).map((r) => r.word);
  const digits = (
    await pg<{ n: string }[]>`
      select distinct (regexp_matches(text, '[0-9]{2,}', 'g'))[1] as n
        from (select search_name || ' ' || search_description || ' ' || search_tags as text from catalog_entries limit 2000) s`
  ).map((r) => r.n);
  const numbers = [...digits, '8080', '5432', '443', '2024', '3000', '9090', '11434', '27017'];
  const tags = (await pg<{ tag: string }[]>`select distinct unnest(tags) as tag from catalog_entries order by 1`).map(
    (r) => r.tag,
  );
  const next = random(36);
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)]!;
  const kinds: Record<TermKind, number> = { word: 0, prefix: 0, number: 0, common: 0 };
  const order: TermKind[] = ['word', 'prefix', 'number', 'common'];
  // A search for one template is read on its first page; the others on page 1 half of the time, else deeper
  // (a common word has hundreds of pages: 2–100, shallow pages more often).
  const page = (deep: number) => (next() < 0.5 ? 1 : 2 + Math.floor(next() * next() * (deep - 1)));
  const query = (kind: TermKind): [string, number] => {
    if (kind === 'word') return [pick(names), 1];
    if (kind === 'common') return [pick(common), page(100)];
    if (kind === 'number') {
      // Half from the catalog's text, half any number of 2–5 digits (mostly no match).
      return next() < 0.5 ? [pick(numbers), page(100)] : [String(Math.floor(10 ** (2 + next() * 3))), 1];
    }
    const length = 4 + Math.floor(next() * 4);
    const fromCommon = next() < 0.5;
    const from = fromCommon ? common.filter((w) => w.length > length) : names;
    return [pick(from.length ? from : names).slice(0, length), page(fromCommon ? 100 : 5)];
  };
  const distinct = (withTags: boolean) => {
    const seen = new Set<string>();
    // A quarter of the URLs per kind (fewer if a kind runs out of distinct URLs).
    for (const kind of order) {
      const quota = Math.ceil(((order.indexOf(kind) + 1) * count) / order.length);
      for (let attempts = 0; seen.size < quota && attempts < count * 20; attempts++) {
        const [term, at] = query(kind);
        const params = new URLSearchParams({ search: term, page: String(at) });
        if (withTags) params.set('tags', [...new Set([pick(tags), ...(next() < 0.5 ? [pick(tags)] : [])])].join(','));
        const url = params.toString();
        if (seen.has(url)) continue;
        seen.add(url);
        if (!withTags) kinds[kind]++;
      }
    }
    // Shuffled (Fisher–Yates) so that the kinds and pages interleave and a term's pages do not follow each other.
    const urls = [...seen];
    for (let i = urls.length - 1; i > 0; i--) {
      const j = Math.floor(next() * (i + 1));
      [urls[i], urls[j]] = [urls[j]!, urls[i]!];
    }
    return urls;
  };
  const urls = distinct(false);
  return { urls, urlsWithTags: distinct(true), kinds, commonWords: common };
}

function keysByOrg<K extends { orgId: string }>(keys: K[]): Map<string, K[]> {
  const byOrg = new Map<string, K[]>();
  for (const k of keys) byOrg.set(k.orgId, [...(byOrg.get(k.orgId) ?? []), k]);
  return byOrg;
}

/** The mix's callers in turn (org null: anonymous), with headers for one of their keys (plain-search.ts). */
export function searchMixCallers(keys: { orgId: string; secret: string }[]): MixCaller[] {
  return [
    { org: null, headers: {} },
    ...[...keysByOrg(keys)].map(([org, own]) => ({ org, headers: { authorization: `Bearer ${own[0]!.secret}` } })),
  ];
}

export interface MixCaller {
  org: string | null;
  headers: Record<string, string>;
}

/**
 * The two cache-miss scenarios of the mix, in the shape of bench/run.ts's missScenarios. The callers take turns:
 * anonymous, then each organization (its keys in turn), so every visibility scope asks about as often.
 */
export function searchMixMisses(mix: SearchMix, keys: { orgId: string; secret: string }[]) {
  const byOrg = keysByOrg(keys);
  const callers: (() => Record<string, string>)[] = [
    () => ({}),
    ...[...byOrg.values()].map((own) => {
      let turn = 0;
      return () => ({ authorization: `Bearer ${own[turn++ % own.length]!.secret}` });
    }),
  ];
  const scenario = (id: string, title: string, urls: string[], request: string) => {
    let at = 0;
    return {
      id,
      title,
      request,
      next: () => {
        const url = urls[at % urls.length]!;
        const headers = callers[at % callers.length]!();
        at++;
        return { path: `/api/v1/catalog/templates?${url}`, headers };
      },
    };
  };
  const { word, prefix, number, common } = mix.kinds;
  return [
    scenario(
      'miss-search-mix',
      'Search mix (words, prefixes, numbers, common words; pages)',
      mix.urls,
      `GET /api/v1/catalog/templates?search={term}&page={n}: ${mix.urls.length.toLocaleString('en-US')} distinct URLs ` +
        `(${word} words, ${prefix} prefixes, ${number} numbers, ${common} common words)`,
    ),
    scenario(
      'miss-search-mix-tags',
      'Search mix + 1–2 tags',
      mix.urlsWithTags,
      `GET /api/v1/catalog/templates?search={term}&tags={tag[,tag]}&page={n}: ` +
        `${mix.urlsWithTags.length.toLocaleString('en-US')} distinct URLs`,
    ),
  ];
}

/** Issue 36: the mix at 100,000 templates within 2× of its latency at 1,000 (one connection, p50). */
export function searchMixScaling(first: SizeResult | undefined, last: SizeResult | undefined) {
  const at = (s: SizeResult | undefined): MissResult | undefined => s?.misses?.find((m) => m.id === 'miss-search-mix');
  const [small, large] = [at(first), at(last)];
  if (!small || !large) return [];
  const ratio = large.one.p50 / small.one.p50;
  return [
    {
      id: 'search-mix-scaling',
      target: 'Search mix at 100,000 templates within 2× its latency at 1,000 (one connection, p50)',
      met: ratio <= 2,
      result:
        `p50 ${large.one.p50.toFixed(2)} ms at 100,000 vs ${small.one.p50.toFixed(2)} ms at 1,000 = ${ratio.toFixed(2)}×` +
        (ratio <= 2 ? '' : ` (missed by ${(ratio - 2).toFixed(2)}×)`),
    },
  ];
}

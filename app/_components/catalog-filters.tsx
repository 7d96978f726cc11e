'use client';
/**
 * The catalog's filter controls. The URL is the one source of truth: the server page parses it (readCatalogParams)
 * and renders the results and these controls from the same values; every control writes the URL back.
 *
 * History: a deliberate change (a category chip or the select, "Featured only", Enter / Apply, a tag link, a page)
 * is a push, so Back returns to the list before it. Typing is debounced (SEARCH_DELAY_MS) and a burst of typing makes
 * one history entry: its first write pushes, the later ones replace it. Back then returns to the list as it was
 * before you started typing, not letter by letter, and nothing typed is lost on reload.
 */
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { useEffect, useLayoutEffect, useRef, useState, useTransition } from 'react';
import { catalogHref, normalizeTags, type CatalogParams } from '../_lib/catalog-params';
import { Pager } from './pager';
import { buttonClass, cx, Input, Select } from './ui';

export const SEARCH_DELAY_MS = 300;

interface Category {
  id: string;
  slug: string;
  name: string;
  template_count: number;
  is_private: boolean;
}

type Mode = 'push' | 'replace';

/**
 * A text box whose value follows the URL: what you type shows at once and reaches the URL after the debounce;
 * a change that comes from elsewhere (Back, a chip, a tag link) replaces the text.
 */
function useUrlText(urlValue: string | undefined) {
  const value = urlValue ?? '';
  const [text, setText] = useState(value);
  // Values this box wrote to the URL that the URL does not show yet (oldest first).
  const sent = useRef<string[]>([]);
  const seen = useRef(value);
  useEffect(() => {
    // Only a change of the URL: at mount the state already is the URL's, or what was typed before hydration.
    if (seen.current === value) return;
    seen.current = value;
    const i = sent.current.lastIndexOf(value);
    if (i === -1) {
      sent.current = [];
      setText(value);
    } else {
      sent.current = sent.current.slice(i + 1);
    }
  }, [value]);
  return { text, setText, sent };
}

function useUrlValue<T>(urlValue: T) {
  const [value, setValue] = useState(urlValue);
  const seen = useRef(urlValue);
  useEffect(() => {
    if (seen.current === urlValue) return;
    seen.current = urlValue;
    setValue(urlValue);
  }, [urlValue]);
  return [value, setValue] as const;
}

export function CatalogFilters({ params, categories }: { params: CatalogParams; categories: Category[] }) {
  const router = useRouter();
  const [pending, startTransition] = useTransition();
  const search = useUrlText(params.search);
  const tags = useUrlText(params.tags);
  const [category, setCategory] = useUrlValue(params.category ?? '');
  const [featured, setFeatured] = useUrlValue(Boolean(params.featured));

  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  // The URL the last typing write went to, and how it went there (see the module comment).
  const typed = useRef<{ href: string; mode: Mode } | null>(null);
  const latest = useRef({ params, search: search.text, tags: tags.text });
  latest.current = { params, search: search.text, tags: tags.text };
  useEffect(() => () => clearTimeout(timer.current), []);

  /** The filters as shown: the URL's, with what is typed but not sent yet. */
  const shown = (): CatalogParams => ({
    ...latest.current.params,
    search: latest.current.search.trim() || undefined,
    tags: normalizeTags(latest.current.tags),
  });

  const navigate = (next: CatalogParams, mode: Mode) => {
    const href = catalogHref(next, {});
    if (href === window.location.pathname + window.location.search) return null;
    const urlSearch = next.search ?? '';
    const urlTags = next.tags ?? '';
    const now = latest.current.params;
    if (urlSearch !== (now.search ?? '')) search.sent.current.push(urlSearch);
    if (urlTags !== (now.tags ?? '')) tags.sent.current.push(urlTags);
    startTransition(() => {
      if (mode === 'push') router.push(href, { scroll: false });
      else router.replace(href, { scroll: false });
    });
    return href;
  };

  /** A deliberate change: sends what is typed too, as a new history entry, back to page 1. */
  const commit = (change: Partial<CatalogParams>) => {
    clearTimeout(timer.current);
    typed.current = null;
    navigate({ ...shown(), ...change, page: 1 }, 'push');
  };

  const onType = (field: 'search' | 'tags', value: string) => {
    (field === 'search' ? search : tags).setText(value);
    latest.current = { ...latest.current, [field]: value };
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      const here = window.location.pathname + window.location.search;
      const last = typed.current;
      // Still the entry this burst made (committed, or on its way): replace it; else this is a new burst.
      const inFlight = search.sent.current.length > 0 || tags.sent.current.length > 0;
      const mode: Mode = last && last.href === here ? 'replace' : last && inFlight ? last.mode : 'push';
      const href = navigate({ ...shown(), page: 1 }, mode);
      if (href) typed.current = { href, mode };
    }, SEARCH_DELAY_MS);
  };

  // What was typed or chosen before React hydrated the page is in the DOM but not in this state: adopt it as if it
  // had been typed now (a layout effect runs before any event reaches the handlers), or Enter would send the URL's
  // old filters. All four at once, so that one navigation carries them (the fields' own hand-over, fields.tsx, then
  // finds the text already rendered and leaves it).
  const form = useRef<HTMLFormElement>(null);
  useLayoutEffect(() => {
    const field = (name: string) => form.current?.elements.namedItem(name) as HTMLInputElement | null;
    for (const name of ['search', 'tags'] as const) {
      const dom = field(name)?.value;
      if (dom !== undefined && dom !== latest.current[name]) onType(name, dom);
    }
    const domCategory = field('category')?.value ?? category;
    const domFeatured = field('featured')?.checked ?? featured;
    if (domCategory !== category || domFeatured !== featured) {
      setCategory(domCategory);
      setFeatured(domFeatured);
      commit({ category: domCategory || undefined, featured: domFeatured || undefined });
    }
    // Once, at hydration: later changes reach the handlers.
  }, []);

  const chipHref = (slug: string | undefined) =>
    catalogHref(
      { ...params, search: search.text.trim() || undefined, tags: normalizeTags(tags.text) },
      { category: slug, page: 1 },
    );
  const onChip = () => {
    clearTimeout(timer.current);
    typed.current = null;
  };

  return (
    <>
      <form
        ref={form}
        method="get"
        action="/"
        role="search"
        aria-label="Catalog filters"
        className="mb-4 grid grid-cols-1 gap-3 rounded-xl border border-zinc-200 bg-white p-4 sm:grid-cols-[2fr_1fr_1fr_auto_auto] sm:items-end"
        onSubmit={(e) => {
          e.preventDefault();
          commit({});
        }}
      >
        <div className="min-w-0">
          <label htmlFor="search" className="mb-1 block text-sm font-medium text-zinc-800">
            Search
          </label>
          <Input
            id="search"
            name="search"
            type="search"
            value={search.text}
            onChange={(e) => onType('search', e.target.value)}
            placeholder="Name, description or tag"
            autoComplete="off"
          />
        </div>
        <div className="min-w-0">
          <label htmlFor="category" className="mb-1 block text-sm font-medium text-zinc-800">
            Category
          </label>
          <Select
            id="category"
            name="category"
            value={category}
            onChange={(e) => {
              setCategory(e.target.value);
              commit({ category: e.target.value || undefined });
            }}
          >
            <option value="">All categories</option>
            {categories.map((c) => (
              <option key={c.id} value={c.slug}>
                {c.name} ({c.template_count}){c.is_private ? ' · private' : ''}
              </option>
            ))}
            {category && !categories.some((c) => c.slug === category) ? (
              <option value={category}>{category} (not available)</option>
            ) : null}
          </Select>
        </div>
        <div className="min-w-0">
          <label htmlFor="tags" className="mb-1 block text-sm font-medium text-zinc-800">
            Tags
          </label>
          <Input
            id="tags"
            name="tags"
            value={tags.text}
            onChange={(e) => onType('tags', e.target.value)}
            placeholder="e.g. llm, gpu"
            autoComplete="off"
            aria-describedby="tags-hint"
          />
          <p id="tags-hint" className="sr-only">
            Comma-separated; a template with any of them matches.
          </p>
        </div>
        <div className="flex items-center gap-2 sm:pb-2">
          <input
            id="featured"
            name="featured"
            type="checkbox"
            value="true"
            checked={featured}
            onChange={(e) => {
              setFeatured(e.target.checked);
              commit({ featured: e.target.checked || undefined });
            }}
            className="h-4 w-4 accent-blue-700"
          />
          <label htmlFor="featured" className="text-sm font-medium text-zinc-800">
            Featured only
          </label>
        </div>
        <button type="submit" className={buttonClass('primary')}>
          Apply
        </button>
      </form>
      <p role="status" className="-mt-2 mb-2 h-4 text-xs text-zinc-600">
        {pending ? 'Updating the results…' : ''}
      </p>

      {categories.length > 0 ? (
        <nav aria-label="Categories" className="mb-6">
          <ul className="flex flex-wrap gap-2">
            <li>
              <Link
                href={chipHref(undefined)}
                scroll={false}
                onClick={onChip}
                aria-current={!params.category ? 'page' : undefined}
                className={chip(!params.category)}
              >
                All
              </Link>
            </li>
            {categories.map((c) => (
              <li key={c.id}>
                <Link
                  href={chipHref(c.slug)}
                  scroll={false}
                  onClick={onChip}
                  aria-current={params.category === c.slug ? 'page' : undefined}
                  className={chip(params.category === c.slug)}
                >
                  {c.name} <span className="opacity-75">{c.template_count}</span>
                  {c.is_private ? <LockIcon /> : null}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
    </>
  );
}

/** Paging of the catalog: links to the URL with every filter kept. */
export function CatalogPager({
  params,
  pagination,
}: {
  params: CatalogParams;
  pagination: { page: number; totalPages: number; total: number };
}) {
  return <Pager pagination={pagination} hrefFor={(page) => catalogHref(params, { page })} />;
}

function LockIcon() {
  return (
    <svg
      role="img"
      aria-label="private"
      viewBox="0 0 16 16"
      className="ml-1 inline h-3.5 w-3.5 align-[-2px]"
      fill="currentColor"
    >
      <path
        d={
          'M8 1a3.5 3.5 0 0 0-3.5 3.5V6H4a1.5 1.5 0 0 0-1.5 1.5v6A1.5 1.5 0 0 0 4 15h8a1.5 1.5 0 0 0 1.5-1.5v-6' +
          'A1.5 1.5 0 0 0 12 6h-.5V4.5A3.5 3.5 0 0 0 8 1Zm2 5H6V4.5a2 2 0 1 1 4 0V6Z'
        }
      />
    </svg>
  );
}

function chip(active: boolean) {
  return cx(
    'inline-block rounded-full border px-3 py-1 text-sm',
    active ? 'border-zinc-900 bg-zinc-900 text-white' : 'border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-100',
  );
}

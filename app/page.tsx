import Link from 'next/link';
import { TRPCError } from '@trpc/server';
import { pageCaller } from '@/server/api/pageCaller';
import { catalogHref, PAGE_SIZE, readCatalogParams, type SearchParams } from './_lib/catalog-params';
import { Badge, buttonClass, cx, EmptyState, ErrorState, Input, Notice, PageHeader, Select } from './_components/ui';

export const dynamic = 'force-dynamic';

export default async function CatalogPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const params = readCatalogParams(await searchParams);
  const { caller, session } = await pageCaller();

  let data: Awaited<ReturnType<typeof caller.catalog.listTemplates>> | null = null;
  let categories: Awaited<ReturnType<typeof caller.catalog.listCategories>>['categories'] = [];
  let error: string | null = null;
  try {
    [data, { categories }] = await Promise.all([
      caller.catalog.listTemplates({
        search: params.search,
        category: params.category,
        tags: params.tags,
        featured: params.featured,
        page: params.page,
        limit: PAGE_SIZE,
      }),
      caller.catalog.listCategories({}),
    ]);
  } catch (err) {
    if (!(err instanceof TRPCError) || err.code === 'INTERNAL_SERVER_ERROR') throw err;
    error = err.message;
  }

  const scope = session.isAdmin
    ? 'As a platform admin you see every template, private ones included.'
    : session.user?.orgId
      ? 'You see public templates and those your organization has access to.'
      : 'You see public templates. Sign in and join an organization to see the private categories it has access to.';

  return (
    <div>
      <PageHeader title="Catalog" description={scope} />
      {session.expired ? (
        <div className="mb-4">
          <Notice>
            Your session has ended. <Link href="/signin" className="font-medium underline">Sign in again</Link>.
          </Notice>
        </div>
      ) : null}

      <form method="get" action="/" role="search" aria-label="Catalog filters" className="mb-4 grid grid-cols-1 gap-3 rounded-xl border border-zinc-200 bg-white p-4 sm:grid-cols-[2fr_1fr_1fr_auto_auto] sm:items-end">
        <div>
          <label htmlFor="search" className="mb-1 block text-sm font-medium text-zinc-800">Search</label>
          <Input id="search" name="search" type="search" defaultValue={params.search} placeholder="Name or description" />
        </div>
        <div>
          <label htmlFor="category" className="mb-1 block text-sm font-medium text-zinc-800">Category</label>
          <Select id="category" name="category" defaultValue={params.category ?? ''}>
            <option value="">All categories</option>
            {categories.map((c) => (
              <option key={c.id} value={c.slug}>
                {c.name} ({c.template_count}){c.is_private ? ' · private' : ''}
              </option>
            ))}
          </Select>
        </div>
        <div>
          <label htmlFor="tags" className="mb-1 block text-sm font-medium text-zinc-800">Tags</label>
          <Input id="tags" name="tags" defaultValue={params.tags} placeholder="e.g. llm, gpu" />
        </div>
        <div className="flex items-center gap-2 pb-2">
          <input id="featured" name="featured" type="checkbox" value="true" defaultChecked={params.featured} className="h-4 w-4 accent-blue-700" />
          <label htmlFor="featured" className="text-sm font-medium text-zinc-800">Featured only</label>
        </div>
        <button type="submit" className={buttonClass('primary')}>Apply</button>
      </form>

      {categories.length > 0 ? (
        <nav aria-label="Categories" className="mb-6">
          <ul className="flex flex-wrap gap-2">
            <li>
              <Link href={catalogHref(params, { category: undefined, page: 1 })} aria-current={!params.category ? 'page' : undefined} className={chip(!params.category)}>
                All
              </Link>
            </li>
            {categories.map((c) => (
              <li key={c.id}>
                <Link href={catalogHref(params, { category: c.slug, page: 1 })} aria-current={params.category === c.slug ? 'page' : undefined} className={chip(params.category === c.slug)}>
                  {c.name} <span className="opacity-75">{c.template_count}</span>
                  {c.is_private ? <LockIcon /> : null}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}

      {error ? (
        <ErrorState title="The catalog could not be loaded" message={error} />
      ) : !data || data.templates.length === 0 ? (
        <EmptyState title="No templates match">
          {params.search || params.category || params.tags || params.featured ? (
            <Link href="/" className="font-medium text-blue-700 underline">Clear the filters</Link>
          ) : (
            'The catalog is empty. Platform admins add templates in Admin → Templates.'
          )}
        </EmptyState>
      ) : (
        <>
          <p className="mb-3 text-sm text-zinc-600" aria-live="polite">
            {data.pagination.total} template{data.pagination.total === 1 ? '' : 's'}
          </p>
          <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {data.templates.map((t) => (
              <li key={t.id}>
                <Link href={`/templates/${encodeURIComponent(t.slug)}`} className="flex h-full flex-col rounded-xl border border-zinc-200 bg-white p-4 shadow-sm transition hover:border-blue-400 hover:shadow">
                  <div className="flex items-start justify-between gap-2">
                    <h2 className="font-semibold text-zinc-900">{t.name}</h2>
                    {t.is_featured ? <Badge tone="amber">Featured</Badge> : null}
                  </div>
                  <p className="mt-0.5 text-xs text-zinc-600">
                    {t.category_name} · v{t.version || '—'}
                  </p>
                  <p className="mt-2 line-clamp-3 flex-1 text-sm text-zinc-700">{t.description}</p>
                  {t.tags.length > 0 ? (
                    <p className="mt-3 flex flex-wrap gap-1">
                      {t.tags.slice(0, 5).map((tag) => (
                        <Badge key={tag}>{tag}</Badge>
                      ))}
                    </p>
                  ) : null}
                </Link>
              </li>
            ))}
          </ul>
          {data.pagination.totalPages > 1 ? (
            <nav aria-label="Pagination" className="mt-6 flex items-center justify-between gap-3">
              {params.page > 1 ? (
                <Link className={buttonClass('secondary')} href={catalogHref(params, { page: params.page - 1 })}>← Previous</Link>
              ) : (
                <span />
              )}
              <span className="text-sm text-zinc-700">
                Page {data.pagination.page} of {data.pagination.totalPages}
              </span>
              {params.page < data.pagination.totalPages ? (
                <Link className={buttonClass('secondary')} href={catalogHref(params, { page: params.page + 1 })}>Next →</Link>
              ) : (
                <span />
              )}
            </nav>
          ) : null}
        </>
      )}
    </div>
  );
}

function LockIcon() {
  return (
    <svg role="img" aria-label="private" viewBox="0 0 16 16" className="ml-1 inline h-3.5 w-3.5 align-[-2px]" fill="currentColor">
      <path d="M8 1a3.5 3.5 0 0 0-3.5 3.5V6H4a1.5 1.5 0 0 0-1.5 1.5v6A1.5 1.5 0 0 0 4 15h8a1.5 1.5 0 0 0 1.5-1.5v-6A1.5 1.5 0 0 0 12 6h-.5V4.5A3.5 3.5 0 0 0 8 1Zm2 5H6V4.5a2 2 0 1 1 4 0V6Z" />
    </svg>
  );
}

function chip(active: boolean) {
  return cx('inline-block rounded-full border px-3 py-1 text-sm', active ? 'border-zinc-900 bg-zinc-900 text-white' : 'border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-100');
}

import Link from 'next/link';
import { TRPCError } from '@trpc/server';
import { pageCaller } from '@/server/api/pageCaller';
import { CatalogFilters, CatalogPager } from './_components/catalog-filters';
import { PastTheEnd } from './_components/pager';
import { TagLink } from './_components/tag-link';
import { catalogHref, PAGE_SIZE, readCatalogParams, type SearchParams } from './_lib/catalog-params';
import { Badge, EmptyState, ErrorState, Notice, PageHeader } from './_components/ui';

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
  const filtered = Boolean(params.search || params.category || params.tags || params.featured);

  return (
    <div>
      <PageHeader title="Catalog" description={scope} />
      {session.expired ? (
        <div className="mb-4">
          <Notice>
            Your session has ended.{' '}
            <Link href="/signin" className="font-medium underline">
              Sign in again
            </Link>
            .
          </Notice>
        </div>
      ) : null}

      <CatalogFilters params={params} categories={categories} />

      {error ? (
        <ErrorState title="The catalog could not be loaded" message={error} />
      ) : !data || data.templates.length === 0 ? (
        data && data.pagination.total > 0 && params.page > data.pagination.totalPages ? (
          <PastTheEnd page={params.page} last={data.pagination.totalPages}>
            <Link
              href={catalogHref(params, { page: data.pagination.totalPages })}
              className="font-medium text-blue-700 underline"
            >
              go to page {data.pagination.totalPages}
            </Link>
          </PastTheEnd>
        ) : (
          <EmptyState title="No templates match">
            {filtered ? (
              <Link href="/" className="font-medium text-blue-700 underline">
                Clear the filters
              </Link>
            ) : (
              'The catalog is empty. Platform admins add templates in Admin → Templates.'
            )}
          </EmptyState>
        )
      ) : (
        <>
          <p className="mb-3 text-sm text-zinc-600" aria-live="polite">
            {data.pagination.total} template{data.pagination.total === 1 ? '' : 's'}
          </p>
          <ul className="grid grid-cols-1 gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {data.templates.map((t) => (
              // The title's link covers the card (after:inset-0); the tag links sit above it, so a card holds no nested links.
              <li
                key={t.id}
                className={
                  'relative flex h-full min-w-0 flex-col rounded-xl border border-zinc-200 bg-white p-4 shadow-sm ' +
                  'transition hover:border-blue-400 hover:shadow'
                }
              >
                <div className="flex items-start justify-between gap-2">
                  <h2 className="min-w-0 font-semibold break-words text-zinc-900">
                    <Link
                      href={`/templates/${encodeURIComponent(t.slug)}`}
                      className="after:absolute after:inset-0 after:rounded-xl"
                    >
                      {t.name}
                    </Link>
                  </h2>
                  {t.is_featured ? <Badge tone="amber">Featured</Badge> : null}
                </div>
                <p className="mt-0.5 text-xs text-zinc-600">
                  {t.category_name} · v{t.version || '—'}
                </p>
                <p className="mt-2 line-clamp-3 flex-1 text-sm break-words text-zinc-700">{t.description}</p>
                {t.tags.length > 0 ? (
                  <ul aria-label={`Tags of ${t.name}`} className="relative z-10 mt-3 flex flex-wrap gap-1">
                    {t.tags.slice(0, 5).map((tag) => (
                      <li key={tag}>
                        <TagLink tag={tag} />
                      </li>
                    ))}
                  </ul>
                ) : null}
              </li>
            ))}
          </ul>
          <div className="mt-6">
            {data.pagination.totalPages > 1 ? <CatalogPager params={params} pagination={data.pagination} /> : null}
          </div>
        </>
      )}
    </div>
  );
}

import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { ErrorNotice, ListTable, PageHeading, Pager, useMe } from '../components';
import { hub } from '../hub';

/** The catalog as synced from the Hub (this instance's local copy); search, category and page live in the URL. */
export function Catalog() {
  const { isAdmin } = useMe();
  const params = new URLSearchParams(useSearch());
  const [, navigate] = useLocation();
  const search = params.get('search') ?? '';
  const category = params.get('category') ?? '';
  const page = Math.max(1, Number(params.get('page')) || 1);
  const [draft, setDraft] = useState(search);
  const go = (next: { search?: string; category?: string; page?: number }) => {
    const q = new URLSearchParams();
    const s = next.search ?? search;
    const c = next.category ?? category;
    if (s) q.set('search', s);
    if (c) q.set('category', c);
    if ((next.page ?? 1) > 1) q.set('page', String(next.page));
    navigate(`/catalog${q.size ? `?${q}` : ''}`);
  };
  const categories = useQuery({ queryKey: ['catalog-categories'], queryFn: hub.categories });
  const list = useQuery({
    queryKey: ['catalog', search, category, page],
    queryFn: () => hub.templates({ search: search || undefined, category: category || undefined, page, limit: 50 }),
    placeholderData: keepPreviousData,
  });
  function submit(e: FormEvent) {
    e.preventDefault();
    go({ search: draft.trim(), page: 1 });
  }
  const filtered = search !== '' || category !== '';
  return (
    <>
      <PageHeading>Catalog</PageHeading>
      <div className="catalog-filters">
        <form role="search" onSubmit={submit} className="search-form" aria-label="Search the catalog">
          <label htmlFor="catalog-search">Search</label>
          <div className="search-row">
            <input id="catalog-search" type="search" value={draft} onChange={(e) => setDraft(e.target.value)} />
            <button type="submit">Search</button>
          </div>
        </form>
        <div className="field">
          <label htmlFor="catalog-category">Category</label>
          <select id="catalog-category" value={category} onChange={(e) => go({ category: e.target.value, page: 1 })}>
            <option value="">All categories</option>
            {categories.data?.categories.map((c) => (
              <option key={c.slug} value={c.slug}>
                {c.name} ({c.count})
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorNotice error={list.error ?? categories.error} />
      {list.data &&
        (list.data.templates.length === 0 ? (
          <p>
            {filtered ? 'No template matches.' : 'The catalog is empty.'}{' '}
            {!filtered && <Link href="/hub">Connect this instance to a Hub</Link>}
          </p>
        ) : (
          <>
            <ListTable
              caption="Catalog templates"
              columns={['Template', 'Category', 'Version', 'Image', ...(isAdmin ? ['Actions'] : [])]}
            >
              {list.data.templates.map((t) => (
                <tr key={t.id}>
                  <th scope="row" data-label="Template">
                    <Link href={`/catalog/${encodeURIComponent(t.slug)}`}>{t.name}</Link>
                    <p className="description">{t.description}</p>
                  </th>
                  <td data-label="Category">{t.category_name}</td>
                  <td data-label="Version">{t.version}</td>
                  <td data-label="Image">
                    <code>
                      {t.image_name}:{t.image_tag}
                    </code>
                  </td>
                  {isAdmin && (
                    <td className="no-label">
                      <Link
                        href={`/deployments?template=${encodeURIComponent(t.slug)}`}
                        aria-label={`Deploy ${t.name}`}
                      >
                        Deploy
                      </Link>
                    </td>
                  )}
                </tr>
              ))}
            </ListTable>
            <Pager pagination={list.data.pagination} onPage={(p) => go({ page: p })} label="Catalog pages" />
          </>
        ))}
    </>
  );
}

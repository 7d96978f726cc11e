import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import { ErrorNotice, ListTable, PageHeading, Pager, useMe } from '../components';
import { hub } from '../hub';

/** The catalog as synced from the Hub (this instance's local copy). */
export function Catalog() {
  const { isAdmin } = useMe();
  const [draft, setDraft] = useState('');
  const [search, setSearch] = useState('');
  const [page, setPage] = useState(1);
  const list = useQuery({ queryKey: ['catalog', search, page], queryFn: () => hub.templates({ search: search || undefined, page, limit: 50 }), placeholderData: keepPreviousData });
  function submit(e: FormEvent) {
    e.preventDefault();
    setSearch(draft.trim());
    setPage(1);
  }
  return (
    <>
      <PageHeading>Catalog</PageHeading>
      <form role="search" onSubmit={submit} className="actions" aria-label="Search the catalog">
        <label htmlFor="catalog-search">Search</label>
        <input id="catalog-search" type="search" value={draft} onChange={(e) => setDraft(e.target.value)} />
        <button type="submit">Search</button>
      </form>
      <ErrorNotice error={list.error} />
      {list.data &&
        (list.data.templates.length === 0 ? (
          <p>
            {search ? 'No template matches.' : 'The catalog is empty.'} {!search && <Link href="/hub">Connect this instance to a Hub</Link>}
          </p>
        ) : (
          <>
            <ListTable caption="Catalog templates" columns={['Template', 'Category', 'Version', 'Image', ...(isAdmin ? [''] : [])]}>
              {list.data.templates.map((t) => (
                <tr key={t.id}>
                  <th scope="row" data-label="Template">
                    {t.name}
                    <div className="muted">{t.description}</div>
                  </th>
                  <td data-label="Category">{t.category_name}</td>
                  <td data-label="Version">{t.version}</td>
                  <td data-label="Image">
                    <code>
                      {t.image_name}:{t.image_tag}
                    </code>
                  </td>
                  {isAdmin && (
                    <td>
                      <Link href={`/deployments?template=${encodeURIComponent(t.slug)}`} aria-label={`Deploy ${t.name}`}>
                        Deploy
                      </Link>
                    </td>
                  )}
                </tr>
              ))}
            </ListTable>
            <Pager pagination={list.data.pagination} onPage={setPage} label="Catalog pages" />
          </>
        ))}
    </>
  );
}

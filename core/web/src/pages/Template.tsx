/**
 * One catalog template: its documentation, the variables a deployment sets (required ones first), the
 * fixed environment, ports, volumes, resources, and the deploy button (admins).
 */
import { DataTable } from '@shared/charts/table';
import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import { Link } from 'wouter';
import { ErrorNotice, PageHeading, useMe } from '../components';
import { hub } from '../hub';

// The Markdown renderer (shared with the Hub: @shared/markdown) is loaded with the first template page, not
// with every page of the app.
const Markdown = lazy(() => import('@shared/markdown').then((m) => ({ default: m.Markdown })));

export function TemplatePage({ params }: { params: { slug: string } }) {
  const { isAdmin } = useMe();
  const slug = decodeURIComponent(params.slug);
  const t = useQuery({ queryKey: ['template', slug], queryFn: () => hub.template(slug), retry: false });
  if (t.error) {
    return (
      <>
        <PageHeading>Template not found</PageHeading>
        <ErrorNotice error={t.error} />
        <p>
          <Link href="/catalog">Back to the catalog</Link>
        </p>
      </>
    );
  }
  if (!t.data) return <p role="status">Loading…</p>;
  const tpl = t.data;
  const documentation = tpl.documentation?.trim() ?? '';
  const variables = [...tpl.env_schema].sort(
    (a, b) => Number(b.required) - Number(a.required) || a.name.localeCompare(b.name),
  );
  const resources = [
    ['CPU', tpl.cpu_request],
    ['Memory', tpl.memory_request],
    ['GPUs', tpl.gpu_count ? String(tpl.gpu_count) : ''],
    ['GPU memory', tpl.vram_request],
  ].filter(([, v]) => v && v !== '0');
  return (
    <>
      <nav aria-label="Breadcrumb" className="breadcrumb">
        <Link href="/catalog">Catalog</Link> <span aria-hidden="true">/</span>{' '}
        <Link href={`/catalog?category=${encodeURIComponent(tpl.category_slug)}`}>{tpl.category_name}</Link>
      </nav>
      <div className="row">
        <PageHeading>{tpl.name}</PageHeading>
        {isAdmin && (
          <Link className="button primary" href={`/deployments?template=${encodeURIComponent(tpl.slug)}`}>
            Deploy {tpl.name}
          </Link>
        )}
      </div>
      <p className="lead">{tpl.description}</p>
      <dl className="facts panel">
        <dt>Version</dt>
        <dd>{tpl.version}</dd>
        <dt>Image</dt>
        <dd>
          <code>
            {tpl.image_name}:{tpl.image_tag}
          </code>
        </dd>
        <dt>Slug</dt>
        <dd>
          <code>{tpl.slug}</code>
        </dd>
        {tpl.tags.length > 0 && (
          <>
            <dt>Tags</dt>
            <dd>{tpl.tags.join(', ')}</dd>
          </>
        )}
      </dl>
      {documentation && (
        <section className="panel" aria-labelledby="doc-heading">
          <h2 id="doc-heading">Documentation</h2>
          <Suspense fallback={<p className="muted">Loading the documentation…</p>}>
            <Markdown source={documentation} headingLevel={3} />
          </Suspense>
        </section>
      )}
      <section className="panel" aria-labelledby="vars-heading">
        <h2 id="vars-heading">Variables</h2>
        {variables.length === 0 ? (
          <p className="muted">This template declares no variables.</p>
        ) : (
          // Scrolls: keyboard users can scroll it when a long default or description is wider than a phone.
          <DataTable
            caption="Variables a deployment sets"
            columns={['Name', 'Required', 'Default', 'Description']}
            scroll
            regionLabel="Deployment settings table"
            classes={{ region: 'table-scroll', table: 'plain text' }}
          >
            {variables.map((v) => (
              <tr key={v.name}>
                <th scope="row">
                  <code>{v.name}</code>
                </th>
                <td>{v.required ? 'required' : 'optional'}</td>
                <td>{v.default_value ? <code>{v.default_value}</code> : <span className="muted">none</span>}</td>
                <td>{v.description}</td>
              </tr>
            ))}
          </DataTable>
        )}
        {tpl.env.length > 0 && (
          <>
            <h3>Fixed environment</h3>
            <ul className="plain-list">
              {tpl.env.map((e) => (
                <li key={e.name}>
                  <code>
                    {e.name}={e.value}
                  </code>
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
      <div className="overview-grid">
        <section className="panel" aria-labelledby="ports-heading">
          <h2 id="ports-heading">Ports and volumes</h2>
          {(tpl.ports ?? []).length === 0 ? (
            <p className="muted">No ports.</p>
          ) : (
            <ul className="plain-list">
              {tpl.ports!.map((p) => (
                <li key={`${p.containerPort}/${p.protocol}`}>
                  <code>
                    {p.containerPort}/{p.protocol.toLowerCase()}
                  </code>
                </li>
              ))}
            </ul>
          )}
          {(tpl.volume_mounts ?? []).length > 0 && (
            <ul className="plain-list">
              {tpl.volume_mounts!.map((v) => (
                <li key={v.name}>
                  Volume {v.name} at <code>{v.mountPath}</code>
                </li>
              ))}
            </ul>
          )}
        </section>
        <section className="panel" aria-labelledby="resources-heading">
          <h2 id="resources-heading">Resources</h2>
          {resources.length === 0 ? (
            <p className="muted">No resource requests.</p>
          ) : (
            <dl className="facts">
              {resources.map(([k, v]) => (
                <div key={k} className="contents">
                  <dt>{k}</dt>
                  <dd>{v}</dd>
                </div>
              ))}
            </dl>
          )}
        </section>
      </div>
    </>
  );
}

import type { Metadata } from 'next';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { TRPCError } from '@trpc/server';
import { pageCaller } from '@/server/api/pageCaller';
import { Markdown } from '../../_components/markdown';
import { Badge, Card, EmptyState, PageHeader, Table, td, th } from '../../_components/ui';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ slug: string }> };

async function load(slug: string) {
  const { caller } = await pageCaller();
  try {
    return await caller.catalog.getTemplate({ slug });
  } catch (err) {
    if (err instanceof TRPCError && (err.code === 'NOT_FOUND' || err.code === 'BAD_REQUEST')) notFound();
    throw err;
  }
}

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { slug } = await params;
  return { title: decodeURIComponent(slug) };
}

export default async function TemplatePage({ params }: Params) {
  const t = await load(decodeURIComponent((await params).slug));
  const resources: [string, string][] = [
    ['CPU request', t.cpu_request || '—'],
    ['Memory request', t.memory_request || '—'],
    ['GPUs', String(t.gpu_count)],
    ['VRAM request', t.vram_request || '—'],
    ['Concurrent jobs', String(t.concurrent_jobs)],
    ['Minimum tier', t.min_tier],
    ['Kind', t.kind],
  ];
  return (
    <div>
      <p className="mb-2 text-sm">
        <Link href="/" className="text-blue-700 underline">← Catalog</Link>
      </p>
      <PageHeader
        title={t.name}
        description={t.description}
        actions={
          <div className="flex flex-wrap gap-1.5">
            <Badge tone="blue">{t.category_name}</Badge>
            {t.is_featured ? <Badge tone="amber">Featured</Badge> : null}
            {!t.is_public ? <Badge tone="violet">Not public</Badge> : null}
          </div>
        }
      />
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div className="min-w-0 space-y-4">
          <Card title="Documentation">
            {t.documentation.trim() ? <Markdown source={t.documentation} /> : <EmptyState title="No documentation yet" />}
          </Card>
          <Card title="Environment" description="Variables the template reads; required ones must be set at deployment.">
            {t.env_schema.length === 0 ? (
              <p className="text-sm text-zinc-600">This template declares no environment variables.</p>
            ) : (
              <Table caption="Environment schema">
                <thead>
                  <tr>
                    <th scope="col" className={th}>Name</th>
                    <th scope="col" className={th}>Required</th>
                    <th scope="col" className={th}>Default</th>
                    <th scope="col" className={th}>Description</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-zinc-100">
                  {t.env_schema.map((e) => (
                    <tr key={e.name}>
                      <td className={`${td} font-mono text-xs`}>{e.name}</td>
                      <td className={td}>{e.required ? <Badge tone="red">required</Badge> : 'optional'}</td>
                      <td className={`${td} font-mono text-xs break-all`}>{e.default_value || '—'}</td>
                      <td className={td}>{e.description}</td>
                    </tr>
                  ))}
                </tbody>
              </Table>
            )}
            {t.env.length > 0 ? (
              <div className="mt-4">
                <h3 className="mb-2 text-sm font-semibold">Preset values</h3>
                <ul className="space-y-1 font-mono text-xs">
                  {t.env.map((e) => (
                    <li key={e.name} className="break-all">
                      {e.name}={e.value}
                    </li>
                  ))}
                </ul>
              </div>
            ) : null}
          </Card>
        </div>
        <div className="space-y-4">
          <Card title="Image">
            <p className="font-mono text-sm break-all">
              {t.image_name}:{t.image_tag}
            </p>
            <p className="mt-2 text-xs text-zinc-600">Version {t.version || '—'} · updated {t.updated_at.slice(0, 10)}</p>
          </Card>
          <Card title="Resources">
            <dl className="grid grid-cols-2 gap-x-3 gap-y-2 text-sm">
              {resources.map(([k, v]) => (
                <div key={k} className="contents">
                  <dt className="text-zinc-600">{k}</dt>
                  <dd className="font-medium text-zinc-900">{v}</dd>
                </div>
              ))}
            </dl>
          </Card>
          <Card title="Ports">
            {t.ports.length === 0 ? (
              <p className="text-sm text-zinc-600">No ports exposed.</p>
            ) : (
              <ul className="space-y-1 text-sm">
                {t.ports.map((p) => (
                  <li key={`${p.containerPort}/${p.protocol}`} className="font-mono">
                    {p.containerPort}/{p.protocol}
                  </li>
                ))}
              </ul>
            )}
          </Card>
          {t.volume_mounts.length > 0 || t.required_network_types.length > 0 || Object.keys(t.node_selector).length > 0 ? (
            <Card title="Placement and storage">
              <dl className="space-y-2 text-sm">
                {t.volume_mounts.length > 0 ? (
                  <div>
                    <dt className="text-zinc-600">Volumes</dt>
                    <dd className="font-mono text-xs">{t.volume_mounts.map((v) => `${v.name} → ${v.mountPath}`).join(', ')}</dd>
                  </div>
                ) : null}
                {t.required_network_types.length > 0 ? (
                  <div>
                    <dt className="text-zinc-600">Networks</dt>
                    <dd>{t.required_network_types.join(', ')}</dd>
                  </div>
                ) : null}
                {Object.keys(t.node_selector).length > 0 ? (
                  <div>
                    <dt className="text-zinc-600">Node selector</dt>
                    <dd className="font-mono text-xs">{Object.entries(t.node_selector).map(([k, v]) => `${k}=${v}`).join(', ')}</dd>
                  </div>
                ) : null}
              </dl>
            </Card>
          ) : null}
          {t.tags.length > 0 ? (
            <Card title="Tags">
              <p className="flex flex-wrap gap-1">
                {t.tags.map((tag) => (
                  <Link key={tag} href={`/?tags=${encodeURIComponent(tag)}`} className="rounded-full bg-zinc-100 px-2 py-0.5 text-xs text-zinc-800 underline-offset-2 hover:underline">
                    {tag}
                  </Link>
                ))}
              </p>
            </Card>
          ) : null}
        </div>
      </div>
    </div>
  );
}

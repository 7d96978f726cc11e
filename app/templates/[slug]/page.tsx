import { Markdown } from '@shared/markdown';
import { isCredentialName } from '@shared/tokens/credential-names';
import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import Link from 'next/link';
import { notFound } from 'next/navigation';
import { TRPCError } from '@trpc/server';
import { pageCaller } from '@/server/api/pageCaller';
import { config } from '@/server/config';
import { orgInstanceUrls } from '@/server/api/pageData';
import { codeTokens, coreCommands, deployLinks, type KnownInstance } from './core-snippet';
import { CopyButton } from '../../_components/copy-button';
import { TagLink } from '../../_components/tag-link';
import { catalogHref, readCatalogParams } from '../../_lib/catalog-params';
import { Badge, buttonClass, Card, EmptyState, PageHeader, Table, td } from '../../_components/ui';

export const dynamic = 'force-dynamic';

type Params = { params: Promise<{ slug: string }> };

async function load(slug: string) {
  const { caller, session } = await pageCaller();
  try {
    const template = await caller.catalog.getTemplate({ slug });
    // A member of an organization sees its instances' own URLs in the Core commands.
    const instances = session.user?.orgId ? await orgInstanceUrls(session.user.orgId) : [];
    return { template, instances };
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
  const { template: t, instances } = await load(decodeURIComponent((await params).slug));
  const resources: [string, string][] = [
    ['CPU request', t.cpu_request || '—'],
    ['Memory request', t.memory_request || '—'],
    ['GPUs', String(t.gpu_count)],
    ['VRAM request', t.vram_request || '—'],
    ['Concurrent jobs', String(t.concurrent_jobs)],
    ['Minimum tier', t.min_tier],
    ['Kind', t.kind],
  ];
  const image = `${t.image_name}:${t.image_tag}`;
  return (
    <div>
      <nav aria-label="Breadcrumb" className="mb-3 text-sm">
        <ol className="flex flex-wrap items-center gap-x-1.5 gap-y-1 text-zinc-600">
          <li>
            <Link href="/" className="text-blue-700 underline">
              Catalog
            </Link>
          </li>
          <li className="flex min-w-0 items-center gap-1.5">
            <span aria-hidden="true">›</span>
            <Link
              href={catalogHref(readCatalogParams({}), { category: t.category_slug })}
              className="break-words text-blue-700 underline"
            >
              {t.category_name}
            </Link>
          </li>
          <li className="flex min-w-0 items-center gap-1.5">
            <span aria-hidden="true">›</span>
            <span aria-current="page" className="min-w-0 font-medium break-words text-zinc-900">
              {t.name}
            </span>
          </li>
        </ol>
      </nav>
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
      <section aria-label="References" className="mb-4 rounded-xl border border-zinc-200 bg-white p-4 shadow-sm sm:p-5">
        <dl className="grid grid-cols-1 gap-3 text-sm md:grid-cols-[minmax(0,3fr)_minmax(0,2fr)_auto] md:items-start md:gap-6">
          <CopyRow term="Image" value={image} label="Copy image reference" what="Image reference" />
          <CopyRow term="Slug" value={t.slug} label="Copy slug" what="Slug" />
          <div>
            <dt className="text-xs font-medium text-zinc-600">Version</dt>
            <dd className="mt-0.5 text-zinc-900">
              {t.version || '—'} <span className="text-zinc-600">· updated {t.updated_at.slice(0, 10)}</span>
            </dd>
          </div>
        </dl>
      </section>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div className="min-w-0 space-y-4">
          <Card title="Documentation">
            {t.documentation.trim() ? (
              <Markdown source={t.documentation} headingLevel={3} />
            ) : (
              <EmptyState title="No documentation yet" />
            )}
          </Card>
          <CoreCard
            slug={t.slug}
            hubUrl={config.hubUrl}
            instances={instances}
            required={t.env_schema.filter((e) => e.required && e.default_value === '').map((e) => e.name)}
          />
          <Card
            title="Environment"
            description="Variables the template reads; required ones must be set at deployment."
          >
            {t.env_schema.length === 0 ? (
              <p className="text-sm text-zinc-600">This template declares no environment variables.</p>
            ) : (
              <Table caption="Environment schema" columns={['Name', 'Required', 'Default', 'Description']}>
                {t.env_schema.map((e) => (
                  <tr key={e.name}>
                    <td className={`${td} font-mono text-xs`}>{e.name}</td>
                    <td className={td}>{e.required ? <Badge tone="red">required</Badge> : 'optional'}</td>
                    <td className={`${td} font-mono text-xs break-all`}>{e.default_value || '—'}</td>
                    <td className={td}>{e.description}</td>
                  </tr>
                ))}
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
        <div className="min-w-0 space-y-4">
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
          {t.volume_mounts.length > 0 ||
          t.required_network_types.length > 0 ||
          Object.keys(t.node_selector).length > 0 ? (
            <Card title="Placement and storage">
              <dl className="space-y-2 text-sm">
                {t.volume_mounts.length > 0 ? (
                  <div>
                    <dt className="text-zinc-600">Volumes</dt>
                    <dd className="font-mono text-xs">
                      {t.volume_mounts.map((v) => `${v.name} → ${v.mountPath}`).join(', ')}
                    </dd>
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
                    <dd className="font-mono text-xs">
                      {Object.entries(t.node_selector)
                        .map(([k, v]) => `${k}=${v}`)
                        .join(', ')}
                    </dd>
                  </div>
                ) : null}
              </dl>
            </Card>
          ) : null}
          {t.tags.length > 0 ? (
            <Card title="Tags">
              <ul aria-label="Tags" className="flex flex-wrap gap-1">
                {t.tags.map((tag) => (
                  <li key={tag}>
                    <TagLink tag={tag} />
                  </li>
                ))}
              </ul>
            </Card>
          ) : null}
        </div>
      </div>
    </div>
  );
}

/** One reference with its copy button. */
function CopyRow({ term, value, label, what }: { term: string; value: string; label: string; what: string }) {
  return (
    <div>
      <dt className="text-xs font-medium text-zinc-600">{term}</dt>
      <dd className="mt-0.5 flex items-start justify-between gap-2">
        <code className="min-w-0 font-mono text-sm break-all text-zinc-900">{value}</code>
        <CopyButton value={value} label={label} what={what} />
      </dd>
    </div>
  );
}

/** A command with its copy button; wraps rather than scrolling sideways (phones). */
function Snippet({
  title,
  code,
  label,
  what,
  children,
}: {
  title: string;
  code: string;
  label: string;
  what: string;
  children?: ReactNode;
}) {
  return (
    <div>
      <div className="mb-1 flex items-end justify-between gap-2">
        <h3 className="text-sm font-semibold text-zinc-900">{title}</h3>
        <CopyButton value={code} label={label} what={what} />
      </div>
      {children ? <p className="mb-2 text-xs text-zinc-600">{children}</p> : null}
      {/* Wraps at spaces; only a token longer than the line (a URL, the JSON body) breaks inside. */}
      <pre className="rounded-lg bg-zinc-900 p-3 font-mono text-xs leading-relaxed wrap-anywhere whitespace-pre-wrap text-zinc-100">
        {codeTokens(code).map((t, i) =>
          t.whole ? (
            <span key={i} className="whitespace-nowrap">
              {t.text}
            </span>
          ) : (
            t.text
          ),
        )}
      </pre>
    </div>
  );
}

/** A Core deployment name (a–z, 0–9, -; 1–63; letter or digit at both ends) from the slug. */
function deploymentName(slug: string) {
  const name = slug
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-+/g, '-')
    .slice(0, 63)
    .replace(/^-+|-+$/g, '');
  return name || 'my-deployment';
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * What Core offers for a template (see the README, "Core and the Hub"): Core reads the catalog with its instance key
 * (GET /api/v1/catalog/templates/{slug} here), syncs it (POST /api/v1/catalog/sync on Core) and records deployments
 * against its copy (POST /api/v1/deployments on Core, validated against the template's environment schema).
 */
function CoreCard({
  slug,
  hubUrl,
  required,
  instances,
}: {
  slug: string;
  hubUrl: string;
  required: string[];
  instances: KnownInstance[];
}) {
  const hubCall = `curl -s -H "Authorization: Bearer $HUB_INSTANCE_KEY" \\\n  ${hubUrl}/api/v1/catalog/templates/${encodeURIComponent(slug)}`;
  // Credentials are bound to Core secrets (Core refuses a literal for them); other variables take a value.
  const env = Object.fromEntries(
    required.map((name) => [name, isCredentialName(name) ? { secret: `${slug}.${name.toLowerCase()}` } : '…']),
  );
  const body = JSON.stringify({ name: deploymentName(slug), template_slug: slug, env });
  const coreCalls = coreCommands({ deploymentBody: shellQuote(body), instances });
  const links = deployLinks(instances, slug);
  return (
    <Card
      title="Use it from Core"
      description="Core sees this template when its organization's instance key does: public templates, and private ones its organization has been granted."
    >
      <div className="space-y-5">
        {links.length > 0 ? (
          <div>
            <h3 className="mb-2 text-sm font-semibold text-zinc-900">Deploy on your instances</h3>
            <ul aria-label="Your organization's Core instances" className="flex flex-wrap gap-2">
              {links.map((l) => (
                <li key={l.name} className="max-w-full">
                  <a href={l.href} className={`${buttonClass('primary', 'sm')} max-w-full`}>
                    <span className="truncate" title={l.name}>
                      Deploy on {l.name}
                    </span>
                  </a>
                </li>
              ))}
            </ul>
            <p className="mt-2 text-xs text-zinc-600">
              Opens the instance&apos;s deploy form for this template, at the address it reported to the Hub; you sign
              in to Core there.
            </p>
          </div>
        ) : null}
        <Snippet title="Hub API" code={hubCall} label="Copy Hub API call" what="Hub API call">
          The template as a Core instance reads it, with its instance key (<code className="font-mono">svh_…</code>).
        </Snippet>
        <Snippet title="Deploy on a Core instance" code={coreCalls} label="Copy Core commands" what="Core commands">
          Sync Core&apos;s copy of the catalog, then record a deployment of this template
          {required.length > 0
            ? ' (replace each … with a value and create the secrets it names in Core first: the template requires those variables)'
            : null}
          . <code className="font-mono">$CORE_TOKEN</code> is a machine token of that Core instance (
          <code className="font-mono">svm_…</code>, admin role): an admin creates it on Core&apos;s Machine tokens page,
          or with <code className="font-mono">core token create</code> on the Core machine. An assistant connected
          through the Hub&apos;s <code className="font-mono">/mcp</code> does the same with Core&apos;s{' '}
          <code className="font-mono">create_deployment</code> tool.
        </Snippet>
      </div>
    </Card>
  );
}

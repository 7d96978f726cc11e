import type { Metadata } from 'next';
import Link from 'next/link';
import { TRPCError } from '@trpc/server';
import { pageCaller } from '@/server/api/pageCaller';
import { errorMessage } from '../../_lib/errors';
import { RelativeTime } from '../../_components/relative-time';
import { Badge, buttonClass, EmptyState, ErrorState, Notice, PageHeader } from '../../_components/ui';
import { AuditFilters } from './audit-filters';
import {
  actionWords,
  actorHref,
  actorLabel,
  describeDetails,
  targetHref,
  targetLabel,
  TARGET_TYPES,
  type AuditEntryView,
} from './describe';
import { auditHref, auditInput, hasFilters, readAuditParams, type SearchParams } from './params';

export const metadata: Metadata = { title: 'Audit log · Admin' };
export const dynamic = 'force-dynamic';

/** Server-rendered (filters and page from the URL), like the catalog: the first row paints with the page. */
export default async function AdminAuditPage({ searchParams }: { searchParams: Promise<SearchParams> }) {
  const { params, badDates } = readAuditParams(await searchParams);
  const { caller } = await pageCaller();
  let data: Awaited<ReturnType<typeof caller.admin.auditLog>> | null = null;
  let error: string | null = null;
  try {
    data = await caller.admin.auditLog(auditInput(params));
  } catch (err) {
    if (!(err instanceof TRPCError) || err.code === 'INTERNAL_SERVER_ERROR') throw err;
    error = errorMessage(err);
  }

  return (
    <div className="space-y-4">
      <PageHeader title="Audit log" description="Who changed what, newest first. Secrets are never recorded." />
      <AuditFilters params={params} />
      {badDates.length > 0 ? (
        <Notice>Dates are written as YYYY-MM-DD; the {badDates.join(' and ')} date was left out.</Notice>
      ) : null}
      {error ? (
        <ErrorState title="The audit log could not be loaded" message={error} />
      ) : !data || data.entries.length === 0 ? (
        <EmptyState title="No audit records match">
          {hasFilters(params) || params.page > 1 ? (
            <Link href="/admin/audit" className="font-medium text-blue-700 underline">
              Clear the filters
            </Link>
          ) : (
            'Changes made in the dashboard, through the API or by the CLI appear here.'
          )}
        </EmptyState>
      ) : (
        <>
          <p className="text-sm text-zinc-600" aria-live="polite">
            {data.pagination.total} record{data.pagination.total === 1 ? '' : 's'}
            {hasFilters(params) ? ' match' : ''}
          </p>
          <ol
            aria-label="Audit records"
            className="divide-y divide-zinc-200 overflow-hidden rounded-xl border border-zinc-200 bg-white"
          >
            {data.entries.map((e) => (
              <AuditRow key={e.id} entry={e} params={params} />
            ))}
          </ol>
          {data.pagination.totalPages > 1 ? (
            <nav aria-label="Pagination" className="flex items-center justify-between gap-3">
              {params.page > 1 ? (
                <Link
                  className={buttonClass('secondary', 'sm')}
                  href={auditHref(params, { page: params.page - 1 })}
                  rel="prev"
                >
                  ← Newer
                </Link>
              ) : (
                <span />
              )}
              <span className="text-sm text-zinc-700">
                Page {data.pagination.page} of {data.pagination.totalPages}
              </span>
              {params.page < data.pagination.totalPages ? (
                <Link
                  className={buttonClass('secondary', 'sm')}
                  href={auditHref(params, { page: params.page + 1 })}
                  rel="next"
                >
                  Older →
                </Link>
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

const link = 'font-medium text-blue-700 hover:underline';

function AuditRow({
  entry: e,
  params,
}: {
  entry: AuditEntryView & { id: number; created_at: string };
  params: ReturnType<typeof readAuditParams>['params'];
}) {
  const actor = actorLabel(e);
  const aHref = actorHref(e);
  const target = targetLabel(e);
  const tHref = targetHref(e);
  const described = describeDetails(e.action, e.details, e.target_name);
  const showOrg = e.org_name && !(e.target_type === 'organization' && e.target_id === e.org_id);
  return (
    <li className="px-4 py-3 sm:flex sm:gap-4">
      <div className="flex shrink-0 items-baseline justify-between gap-2 text-xs text-zinc-600 sm:block sm:w-32">
        <RelativeTime value={e.created_at} className="whitespace-nowrap" />
        <code className="font-mono text-[11px] break-all text-zinc-600 sm:mt-1 sm:block">{e.action}</code>
      </div>
      <div className="mt-1 min-w-0 flex-1 sm:mt-0">
        <p className="text-sm text-zinc-900">
          {aHref ? (
            <Link href={aHref} className={link} title={e.actor_email ?? undefined}>
              {actor}
            </Link>
          ) : (
            <span className="font-medium">{actor}</span>
          )}
          {e.actor_deleted ? (
            <>
              {' '}
              <Badge>deleted</Badge>
            </>
          ) : null}{' '}
          {actionWords(e.action)}{' '}
          {target ? (
            tHref ? (
              <Link href={tHref} className={link}>
                {target}
              </Link>
            ) : (
              <span className="font-medium">{target}</span>
            )
          ) : e.target_id ? null : (
            <span className="text-zinc-600">({TARGET_TYPES[e.target_type] ?? e.target_type})</span>
          )}
          {e.target_deleted ? (
            <>
              {' '}
              <Badge>{e.target_name ? 'deleted' : (TARGET_TYPES[e.target_type] ?? e.target_type)}</Badge>
            </>
          ) : null}
          {showOrg ? (
            <>
              {' '}
              in{' '}
              <Link href={`/admin/organizations/${e.org_id}`} className={link}>
                {e.org_name}
              </Link>
            </>
          ) : null}
        </p>
        {described.changes.length > 0 ? (
          <div className="mt-1 space-y-0.5 text-sm text-zinc-800">
            {described.changes.map((c) => (
              <p key={c.field} className="break-words">
                <span className="text-zinc-600">{c.field}:</span>{' '}
                <del className="rounded bg-red-50 px-1 text-red-800 decoration-red-400">{c.from}</del>{' '}
                <span aria-hidden="true">→</span>{' '}
                <ins className="rounded bg-green-50 px-1 text-green-800 no-underline">{c.to}</ins>
              </p>
            ))}
          </div>
        ) : null}
        {described.changedFields.length > 0 ? (
          <p className="mt-1 text-sm text-zinc-800">
            <span className="text-zinc-600">Changed:</span> {described.changedFields.join(', ')}
          </p>
        ) : null}
        {described.facts.length > 0 ? (
          <p className="mt-1 text-xs break-words text-zinc-600">
            {described.facts.map((f, i) => (
              <span key={f.label}>
                {i > 0 ? ' · ' : ''}
                {f.label}: <span className="text-zinc-800">{f.value}</span>
              </span>
            ))}
          </p>
        ) : null}
      </div>
      {e.actor_id && params.actor !== e.actor_id ? (
        <div className="mt-1 shrink-0 text-xs sm:mt-0">
          <Link href={auditHref(params, { actor: e.actor_id, page: 1 })} className="text-blue-700 hover:underline">
            Only this actor<span className="sr-only">: {actor}</span>
          </Link>
        </div>
      ) : null}
    </li>
  );
}

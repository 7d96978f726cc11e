'use client';
/**
 * The fleet at a glance (admin overview; an organization admin's own instances on the account page): 30 days of
 * daily rollups as charts (Recharts), each with a table equivalent for screen readers, top templates (admin),
 * instances by Core version, and the instance health table with its filters in the URL.
 */
import { Chart, DataTable, formatCount, seriesTotals, type ChartColors, type ChartProps } from '@shared/charts';
import Link from 'next/link';
import type { ReactNode } from 'react';
import { toast } from 'sonner';
import { errorMessage } from '../../_lib/errors';
import { trpc, type RouterOutputs } from '../../_lib/trpc';
import { fleetInput } from '../../admin/list-params';
import { useListUrl } from '../../admin/use-list-url';
import { Cell, ListTable, ListView, Row } from '../list-view';
import { RelativeTime } from '../relative-time';
import { Badge, Button, Card, EmptyState, ErrorState, Field, Input, Loading, Select } from '../ui';

type Overview = RouterOutputs['admin']['fleet'];
type Day = Overview['series'][number];
type Instance = Overview['instances'][number];

// CSS variables (app/globals.css): the light and dark schemes set them.
const COLORS: ChartColors = {
  axis: 'var(--chart-text)',
  grid: 'var(--chart-grid)',
  panel: 'var(--color-white)',
  text: 'var(--chart-text)',
};

/** A card with the shared chart (@shared/charts): a picture named by its totals, and a table equivalent. */
function ChartCard({
  title,
  description,
  data,
  series,
  kind,
  measure,
  testId,
}: {
  title: string;
  description: string;
  data: Day[];
  series: { key: keyof Day & string; label: string; color: string }[];
  kind: 'line' | 'bar';
  measure?: ChartProps['measure'];
  testId: string;
}) {
  const period = `last ${data.length} days`;
  // What the picture's name says, in short, for sighted readers too.
  const visible =
    measure === 'level'
      ? `${series[0]!.label}: at most ${formatCount(Math.max(0, ...data.map((d) => Number(d[series[0]!.key]))))}`
      : seriesTotals(data, series)
          .map((s) => `${s.label}: ${formatCount(s.total)}`)
          .join(' · ');
  return (
    <Card title={title} description={description} className="min-w-0">
      <p className="mb-2 text-sm text-zinc-700" data-testid={`${testId}-summary`}>
        {visible} <span className="text-zinc-600">({data.length} days)</span>
      </p>
      <Chart
        title={title}
        period={period}
        data={data}
        category="day"
        categoryLabel="Day"
        formatCategory={(day) => day.slice(5) /* MM-DD */}
        formatTableCategory={(day) => day}
        series={series}
        kind={kind}
        measure={measure}
        colors={COLORS}
        gridDash="3 3"
        testId={testId}
        tableLabel="Show as table"
        tableCaption={`${title}, by day (UTC)`}
        classes={{
          picture: 'h-48 w-full',
          details: 'mt-2 text-sm',
          summary: 'cursor-pointer text-blue-700',
          table: { region: 'mt-2 max-h-64 overflow-y-auto', table: 'min-w-full text-xs', th: 'px-2 py-1 text-left' },
          row: 'border-t border-zinc-100',
          rowHeader: 'px-2 py-1 text-left font-normal',
          cell: 'px-2 py-1',
          figure: 'text-right tabular-nums',
        }}
      />
    </Card>
  );
}

function formatAge(seconds: number | null): string {
  if (seconds === null) return 'never synced';
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 5400) return `${Math.round(seconds / 60)} min`;
  if (seconds < 172_800) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} days`;
}

const FRESHNESS_TONE = { fresh: 'green', stale: 'red', never: 'amber' } as const;

function McpCounts({ mcp }: { mcp: Instance['mcp_30d'] }) {
  const total = mcp.ok + mcp.refused_hub + mcp.refused_instance + mcp.upstream_error;
  if (total === 0) return <span className="text-zinc-600">none</span>;
  return (
    <span className="tabular-nums">
      {total}{' '}
      <span className="text-zinc-600">
        ({mcp.ok} ok, {mcp.refused_hub + mcp.refused_instance} refused, {mcp.upstream_error} failed)
      </span>
    </span>
  );
}

function TopTable({ title, rows }: { title: string; rows: Overview['top_templates_7d'] }) {
  return (
    <Card title={title} className="min-w-0">
      {rows.length === 0 ? (
        <p className="text-sm text-zinc-600">No keyed reads yet.</p>
      ) : (
        <ol className="space-y-1 text-sm">
          {rows.map((t, i) => (
            <li key={t.id} className="flex items-baseline justify-between gap-3">
              <span className="min-w-0 truncate">
                <span className="mr-2 text-zinc-600 tabular-nums">{i + 1}.</span>
                <Link href={`/templates/${t.slug}`} className="text-blue-700 underline-offset-2 hover:underline">
                  {t.name}
                </Link>
              </span>
              <span className="tabular-nums text-zinc-800">{t.downloads}</span>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}

function VersionsCard({ versions }: { versions: Overview['versions'] }) {
  const max = Math.max(1, ...versions.map((v) => v.instances));
  return (
    <Card
      title="Instances by Core version"
      description="Active instance keys, by the version they last reported."
      className="min-w-0"
    >
      {versions.length === 0 ? (
        <p className="text-sm text-zinc-600">No active instances.</p>
      ) : (
        <DataTable
          caption="Active instances by Core version"
          columns={['Version', 'Instances']}
          classes={{ table: 'w-full text-sm', thead: 'sr-only' }}
          testId="versions"
        >
          {versions.map((v) => (
            <tr key={v.version}>
              <th scope="row" className="w-32 py-1 pr-2 text-left font-mono text-xs font-normal break-all">
                {v.version}
              </th>
              <td className="py-1">
                <div className="flex items-center gap-2">
                  <div
                    aria-hidden="true"
                    className="h-3 rounded bg-[var(--chart-1)]"
                    style={{ width: `${(v.instances / max) * 100}%`, minWidth: 4 }}
                  />
                  <span className="tabular-nums">{v.instances}</span>
                </div>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </Card>
  );
}

/**
 * Changes of the instance's registered MCP or base URL that no organization admin has acknowledged yet: where the
 * Hub now sends this instance's MCP calls (and the people's assertions), and which key secret said so.
 */
function UrlChanges({ instance, canAcknowledge }: { instance: Instance; canAcknowledge: boolean }) {
  const utils = trpc.useUtils();
  const acknowledge = trpc.account.acknowledgeUrlChanges.useMutation({
    onSuccess: async () => {
      toast.success(`URL changes of ${instance.name} acknowledged`);
      await utils.account.fleet.invalidate();
    },
  });
  const newest = instance.url_changes.at(-1)!;
  return (
    <div className="mt-1 space-y-1" data-testid={`url-changes-${instance.name}`}>
      <Badge tone="amber">URL changed</Badge>
      <ul className="text-xs text-zinc-700">
        {instance.url_changes.map((c) => (
          <li key={`${c.at}-${c.field}`} className="break-all">
            {c.field === 'mcp_url' ? 'MCP URL' : 'Base URL'}: {c.from ?? '(none)'} → {c.to ?? '(none)'} by key{' '}
            <span className="font-mono">{c.key_prefix}</span> <RelativeTime value={c.at} />
          </li>
        ))}
      </ul>
      {canAcknowledge ? (
        <Button
          size="sm"
          variant="secondary"
          disabled={acknowledge.isPending}
          onClick={() => acknowledge.mutate({ instance_id: instance.id, through: newest.at })}
        >
          Acknowledge
        </Button>
      ) : null}
      {acknowledge.error ? <p className="text-xs text-red-700">{errorMessage(acknowledge.error)}</p> : null}
    </div>
  );
}

function HealthTable({
  data,
  admin,
  go,
}: {
  data: Overview;
  admin: boolean;
  go: (c: Record<string, string | number | undefined>) => void;
}) {
  return (
    <ListTable
      caption="Instance health"
      columns={[
        { label: 'Instance' },
        ...(admin ? [{ label: 'Organization' }] : []),
        { label: 'Version' },
        { label: 'Last seen' },
        { label: 'Catalog freshness' },
        { label: 'Polls (30 d)' },
        { label: 'MCP calls (30 d)' },
      ]}
    >
      {data.instances.map((i) => (
        <Row key={i.id} testId={`health-${i.name}`}>
          <Cell primary>
            <span className="font-medium break-all">{i.name}</span>
            {i.base_url ? <span className="block text-xs break-all text-zinc-600">{i.base_url}</span> : null}
            {i.url_changes.length > 0 ? <UrlChanges instance={i} canAcknowledge={!admin} /> : null}
          </Cell>
          {admin ? (
            <Cell label="Organization">
              <Link
                href={`/admin/organizations/${i.org_id}`}
                className="text-blue-700 underline-offset-2 hover:underline"
              >
                {i.org_name}
              </Link>
            </Cell>
          ) : null}
          <Cell label="Version" nowrap>
            <button
              type="button"
              className="font-mono text-xs text-blue-700 underline-offset-2 hover:underline"
              onClick={() => go({ version: i.version ?? 'unknown' })}
              aria-label={`Show instances of version ${i.version ?? 'unknown'}`}
            >
              {i.version ?? 'unknown'}
            </button>
          </Cell>
          <Cell label="Last seen" nowrap>
            {i.last_seen_at ? <RelativeTime value={i.last_seen_at} /> : 'never'}
          </Cell>
          <Cell label="Catalog freshness" nowrap>
            <Badge tone={FRESHNESS_TONE[i.freshness]}>{i.freshness}</Badge>{' '}
            <span
              className="text-xs text-zinc-700"
              title={i.last_checked_at ? `checked_at ${i.last_checked_at}` : undefined}
            >
              {formatAge(i.freshness_s)}
              {i.poll_interval_s ? ` · polls every ${formatAge(i.poll_interval_s)}` : ''}
            </span>
          </Cell>
          <Cell label="Polls (30 d)" nowrap>
            <span className="tabular-nums">{i.polls_30d}</span>
          </Cell>
          <Cell label="MCP calls (30 d)">
            <McpCounts mcp={i.mcp_30d} />
          </Cell>
        </Row>
      ))}
    </ListTable>
  );
}

/** The whole fleet view; `scope` picks the procedure: the platform (admin) or the caller's organization. */
export function FleetView({ scope }: { scope: 'admin' | 'org' }) {
  const url = useListUrl();
  const input = fleetInput(url.raw);
  const adminQuery = trpc.admin.fleet.useQuery(input, { enabled: scope === 'admin', placeholderData: (p) => p });
  const orgQuery = trpc.account.fleet.useQuery(input, { enabled: scope === 'org', placeholderData: (p) => p });
  const query = scope === 'admin' ? adminQuery : orgQuery;
  if (query.isPending) return <Loading label="Loading the fleet overview…" rows={6} />;
  if (query.isError || !query.data)
    return <ErrorState title="The fleet overview could not be loaded" message={errorMessage(query.error)} />;
  const data = query.data;
  const stale = data.instances.filter((i) => i.freshness === 'stale').length;
  return (
    <div className="space-y-4" data-testid={`fleet-${scope}`}>
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <ChartCard
          testId="chart-downloads"
          title="Template downloads"
          description="Keyed template reads by instances, per UTC day."
          kind="bar"
          data={data.series}
          series={[{ key: 'downloads', label: 'Downloads', color: 'var(--chart-1)' }]}
        />
        <ChartCard
          testId="chart-active"
          title="Active instances"
          description="Instance keys that polled the catalog or read a template that day."
          kind="line"
          data={data.series}
          measure="level"
          series={[{ key: 'active_instances', label: 'Active instances', color: 'var(--chart-2)' }]}
        />
        <ChartCard
          testId="chart-mcp"
          title="MCP calls by outcome"
          description={
            "Through the Hub's /mcp proxy: answered, refused by the Hub or by the instance, failed upstream " +
            "(the instance's own overview counts its tool calls with the same words)."
          }
          kind="bar"
          data={data.series}
          series={[
            { key: 'mcp_ok', label: 'OK', color: 'var(--chart-2)' },
            { key: 'mcp_refused_hub', label: 'Refused by Hub', color: 'var(--chart-3)' },
            { key: 'mcp_refused_instance', label: 'Refused by instance', color: 'var(--chart-5)' },
            { key: 'mcp_upstream_error', label: 'Failed upstream', color: 'var(--chart-4)' },
          ]}
        />
        <ChartCard
          testId="chart-tickets"
          title="Support tickets"
          description="Opened and closed per UTC day."
          kind="bar"
          data={data.series}
          series={[
            { key: 'tickets_opened', label: 'Opened', color: 'var(--chart-1)' },
            { key: 'tickets_closed', label: 'Closed', color: 'var(--chart-2)' },
          ]}
        />
      </div>
      <div className={scope === 'admin' ? 'grid grid-cols-1 gap-4 lg:grid-cols-3' : 'grid grid-cols-1 gap-4'}>
        {scope === 'admin' ? (
          <>
            <TopTable title="Top templates, 7 days" rows={data.top_templates_7d} />
            <TopTable title="Top templates, 30 days" rows={data.top_templates_30d} />
          </>
        ) : null}
        <VersionsCard versions={data.versions} />
      </div>
      <Card
        title="Instance health"
        description={
          "Catalog freshness is the time since an instance's last successful sync; stale after 3 × its poll interval " +
          `or 24 h.${stale ? ` ${stale} stale on this page.` : ''}`
        }
      >
        <HealthFilters input={input} go={url.go} />
        <div className="mt-3">
          <ListView
            query={query}
            items={(d) => d.instances}
            errorTitle="Instances could not be loaded"
            empty={<EmptyState title="No instances match">Change or clear the filters.</EmptyState>}
            onPage={(page) => url.go({ page })}
          >
            {() => <HealthTable data={data} admin={scope === 'admin'} go={url.go} />}
          </ListView>
        </div>
      </Card>
    </div>
  );
}

function HealthFilters({
  input,
  go,
}: {
  input: ReturnType<typeof fleetInput>;
  go: (c: Record<string, string | number | undefined>) => void;
}): ReactNode {
  return (
    <form
      className="flex flex-wrap items-end gap-3"
      role="search"
      aria-label="Filter instances"
      onSubmit={(e) => {
        e.preventDefault();
        const q = new FormData(e.currentTarget).get('search');
        go({ search: typeof q === 'string' ? q.trim() : undefined });
      }}
    >
      <Field id="fleet-search" label="Search" className="min-w-[12rem] flex-1">
        <Input
          id="fleet-search"
          name="search"
          defaultValue={input.search ?? ''}
          placeholder="Instance, organization or URL"
          key={input.search ?? ''}
        />
      </Field>
      <Field id="fleet-freshness" label="Freshness" className="w-40">
        <Select
          id="fleet-freshness"
          value={input.freshness ?? ''}
          onChange={(e) => go({ freshness: e.target.value || undefined })}
        >
          <option value="">Any</option>
          <option value="stale">Stale</option>
          <option value="never">Never synced</option>
          <option value="fresh">Fresh</option>
        </Select>
      </Field>
      <Button type="submit" variant="secondary">
        Apply
      </Button>
      {input.version ? (
        <p className="text-sm">
          Version <span className="font-mono">{input.version}</span>{' '}
          <button type="button" className="text-blue-700 underline" onClick={() => go({ version: undefined })}>
            clear
          </button>
        </p>
      ) : null}
    </form>
  );
}

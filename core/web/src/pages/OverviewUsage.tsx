/** Use over the last days: the overview's charts, loaded on their own (Recharts is most of their weight). */
import { DataTable } from '@shared/charts';
import { shortDay, StackedBars } from '../charts';
import type { Overview as OverviewData } from '../types';

/** The requests' status classes, each in its colour (tone). */
const STATUS_CLASSES = [
  ['2xx', 'ok'],
  ['3xx', 'info'],
  ['4xx', 'warn'],
  ['5xx', 'bad'],
] as const;

export default function Usage({ o }: { o: OverviewData }) {
  const req = o.machine_token_requests;
  const mcp = o.mcp_calls;
  const period = `last ${o.days} days`;
  return (
    <section className="panel" aria-labelledby="usage-heading">
      <h2 id="usage-heading">Use over the last {o.days} days</h2>
      <div className="overview-grid">
        <StackedBars
          title="Machine-token requests per day"
          period={period}
          data={req.days}
          category="day"
          categoryLabel="Day (UTC)"
          formatCategory={shortDay}
          series={STATUS_CLASSES.map(([key, tone]) => ({ key, label: key, tone }))}
        />
        <StackedBars
          title="MCP tool calls by tool"
          period={period}
          data={mcp.by_tool}
          category="tool"
          categoryLabel="Tool"
          categories="kinds"
          layout="bars"
          empty={`No MCP tool calls in the last ${o.days} days.`}
          // The words of the Hub's fleet overview (OK, Refused, Failed) for the same outcomes.
          series={[
            { key: 'ok', label: 'OK', tone: 'ok' },
            { key: 'refused', label: 'Refused', tone: 'warn' },
            { key: 'error', label: 'Failed', tone: 'bad' },
          ]}
        />
      </div>
      {req.by_token.length > 0 && (
        <DataTable
          caption="Requests per machine token"
          captionVisible
          columns={['Token', 'Requests', 'Refused or failed']}
          scroll
          classes={{ region: 'table-scroll', table: 'plain' }}
        >
          {req.by_token.map((t) => (
            <tr key={t.token_id}>
              <th scope="row">{t.name}</th>
              <td>{t.total}</td>
              <td>{t.errors}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

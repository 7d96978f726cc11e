/** Use over the last days: the overview's charts, loaded on their own (Recharts is most of their weight). */
import { shortDay, StackedBars } from '../charts';
import type { Overview as OverviewData } from '../types';

const sum = (rows: Record<string, unknown>[], keys: string[]) =>
  rows.reduce((n, r) => n + keys.reduce((m, k) => m + (Number(r[k]) || 0), 0), 0);

export default function Usage({ o }: { o: OverviewData }) {
  const req = o.machine_token_requests;
  const mcp = o.mcp_calls;
  const reqTotal = sum(req.days, ['2xx', '3xx', '4xx', '5xx']);
  const reqErrors = sum(req.days, ['4xx', '5xx']);
  const mcpTotal = sum(mcp.by_tool, ['total']);
  const refused = sum(mcp.by_tool, ['refused']);
  const failed = sum(mcp.by_tool, ['error']);
  return (
    <section className="panel" aria-labelledby="usage-heading">
      <h2 id="usage-heading">Use over the last {o.days} days</h2>
      <div className="overview-grid">
        <StackedBars
          title="Machine-token requests per day"
          summary={`${reqTotal} machine-token requests in the last ${o.days} days, ${reqErrors} of them refused or failed (4xx or 5xx).`}
          data={req.days}
          category="day"
          categoryLabel="Day (UTC)"
          formatCategory={shortDay}
          series={[
            { key: '2xx', label: '2xx', tone: 'ok' },
            { key: '3xx', label: '3xx', tone: 'info' },
            { key: '4xx', label: '4xx', tone: 'warn' },
            { key: '5xx', label: '5xx', tone: 'bad' },
          ]}
        />
        <StackedBars
          title="MCP tool calls by tool"
          summary={
            mcpTotal === 0
              ? `No MCP tool calls in the last ${o.days} days.`
              : `${mcpTotal} MCP tool calls in the last ${o.days} days: ${mcp.by_tool.map((t) => `${t.tool} ${t.total}`).join(', ')}; ${refused} refused, ${failed} failed.`
          }
          data={mcp.by_tool}
          category="tool"
          categoryLabel="Tool"
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
        <div className="table-scroll" tabIndex={0} role="region" aria-label="Requests per machine token">
          <table className="plain">
            <caption>Requests per machine token</caption>
            <thead>
              <tr>
                <th scope="col">Token</th>
                <th scope="col">Requests</th>
                <th scope="col">Refused or failed</th>
              </tr>
            </thead>
            <tbody>
              {req.by_token.map((t) => (
                <tr key={t.token_id}>
                  <th scope="row">{t.name}</th>
                  <td>{t.total}</td>
                  <td>{t.errors}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

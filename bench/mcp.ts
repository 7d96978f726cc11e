/**
 * The MCP runs of `npm run bench`: a tools/call in one MCP session straight to the upstream (bench/mcp-upstream.mjs),
 * through the same-work proxy (bench/same-work-proxy.mjs, issue 36) and through the Hub's /mcp, at one and at
 * `connections` connections; then where a call's time goes inside the Hub (its Server-Timing phases).
 */
import type { McpSetup } from './credentials';
import { mergeWindows, runLoad, type LoadResult, type RequestSpec } from './load';
import { cpuTimes, type Server } from './processes';
import type { ProfiledWindow } from './profile';
import type { McpPair, McpResult } from './report';
import { bearer, fetchJson } from './scenarios';

export interface McpOptions {
  connections: number;
  warmupSec: number;
  durationSec: number;
  /** Sequential calls for the Server-Timing breakdown. */
  sequentialCalls: number;
  /** The Hub and the same-work proxy alternate this many windows, durationSec in all for each. */
  rounds: number;
  log: (message: string) => void;
}

export async function measureMcp(
  opts: McpOptions,
  hub: Server,
  upstream: Server,
  sameWorkProxy: Server | null,
  setup: McpSetup,
  broken: string[],
  profiled?: (w: ProfiledWindow) => void,
): Promise<McpResult> {
  const session = await openMcpSession(upstream.base, setup);
  if (!session.headers) {
    broken.push(`MCP upstream did not open a session (HTTP ${session.status})`);
    return { notApplicable: 'the bench could not open an MCP session upstream', runs: [] };
  }
  const call = mcpCall(session.headers);
  const check = await fetchJson(hub.base, call(setup.pat)());
  if (check.status !== 200 || !JSON.stringify(check.body).includes('echo: hello')) {
    broken.push(`tools/call through /mcp answered ${check.status}: ${JSON.stringify(check.body).slice(0, 300)}`);
    return { notApplicable: `tools/call through /mcp answered HTTP ${check.status}`, runs: [] };
  }
  const runs: McpResult['runs'] = [];
  const { connections, warmupSec, durationSec } = opts;
  for (const c of [1, connections]) {
    let window = { fromUs: 0, cpu: { userUs: 0, systemUs: 0 } };
    /** CPU (user + system, µs, /proc) of the server measured and of the upstream behind it, over its windows. */
    const used: Record<string, { server: number; upstream: number; calls: number }> = {};
    /** One measured window of `seconds`; its CPU is added to the server's tally. */
    const measure = async (who: string, server: Server, token: string, seconds: number): Promise<LoadResult> => {
      const before = [cpuTimes(server.child.proc.pid!), cpuTimes(upstream.child.proc.pid!)] as const;
      if (who === 'hub' && window.fromUs === 0)
        window = { fromUs: Number(process.hrtime.bigint() / 1000n), cpu: cpuTimes(hub.child.proc.pid!) };
      const result = await runLoad({
        base: server.base,
        connections: c,
        durationSec: seconds,
        next: call(token),
        expect: [200],
      });
      const after = [cpuTimes(server.child.proc.pid!), cpuTimes(upstream.child.proc.pid!)] as const;
      const spent = (i: 0 | 1) => after[i].userUs - before[i].userUs + after[i].systemUs - before[i].systemUs;
      const tally = (used[who] ??= { server: 0, upstream: 0, calls: 0 });
      tally.server += spent(0);
      tally.upstream += spent(1);
      tally.calls += result.requests;
      return result;
    };
    const warm = (server: Server, token: string) =>
      runLoad({ base: server.base, connections: c, durationSec: warmupSec, next: call(token), expect: [200] });
    await warm(upstream, setup.directAssertion);
    const direct = await measure('direct', upstream, setup.directAssertion, durationSec);
    // The Hub and the same-work proxy in alternating windows (as the edge scenarios, bench/run.ts): the machine's
    // speed drifts within a minute, so each pair of adjacent windows is compared and the report takes the median.
    let sameWork: LoadResult | undefined;
    let viaHub: LoadResult;
    const pairs: McpPair[] = [];
    if (sameWorkProxy) {
      await warm(sameWorkProxy, setup.pat);
      await warm(hub, setup.pat);
      const windows: { hub: LoadResult[]; sameWork: LoadResult[] } = { hub: [], sameWork: [] };
      for (let round = 0; round < opts.rounds; round++) {
        const w = await measure('same-work', sameWorkProxy, setup.pat, durationSec / opts.rounds);
        const h = await measure('hub', hub, setup.pat, durationSec / opts.rounds);
        windows.sameWork.push(w);
        windows.hub.push(h);
        pairs.push({ hub: h.rps, sameWork: w.rps, hubP50: h.p50, sameWorkP50: w.p50 });
      }
      sameWork = mergeWindows(windows.sameWork);
      viaHub = mergeWindows(windows.hub);
    } else {
      await warm(hub, setup.pat);
      viaHub = await measure('hub', hub, setup.pat, durationSec);
    }
    /** CPU per call of each server measured, and of the upstream behind it. */
    const cpu = Object.fromEntries(
      Object.entries(used).map(([who, t]) => [
        who,
        { server: t.server / Math.max(1, t.calls), upstream: t.upstream / Math.max(1, t.calls) },
      ]),
    );
    opts.log(
      `MCP CPU per call, ${c} connection(s) (µs, /proc): ` +
        Object.entries(cpu)
          .map(([who, { server, upstream: up }]) =>
            who === 'direct'
              ? `direct: upstream ${up.toFixed(0)}`
              : `${who} ${server.toFixed(0)} + upstream ${up.toFixed(0)}`,
          )
          .join(' | '),
    );
    profiled?.({
      id: `mcp-${c}`,
      title: `MCP tools/call through /mcp, ${c} connection(s)`,
      fromUs: window.fromUs,
      toUs: Number(process.hrtime.bigint() / 1000n),
      requests: viaHub.requests,
      cpu: (({ userUs, systemUs }) => ({
        userUs: userUs - window.cpu.userUs,
        systemUs: systemUs - window.cpu.systemUs,
      }))(cpuTimes(hub.child.proc.pid!)),
    });
    opts.log(
      `MCP tools/call, ${c} connection(s): direct p50 ${direct.p50.toFixed(2)} ms ${direct.rps.toFixed(0)} req/s | ` +
        (sameWork ? `same-work proxy p50 ${sameWork.p50.toFixed(2)} ms ${sameWork.rps.toFixed(0)} req/s | ` : '') +
        `/mcp p50 ${viaHub.p50.toFixed(2)} ms ${viaHub.rps.toFixed(0)} req/s`,
    );
    for (const [who, r] of [
      ['direct', direct],
      ['/mcp', viaHub],
      ['same-work proxy', sameWork],
    ] as const) {
      if (!r) continue;
      if (r.unexpected > Math.max(0, r.requests * 0.01))
        broken.push(`MCP ${who} with ${c} connections answered ${JSON.stringify(r.statuses)}`);
    }
    runs.push({ connections: c, direct, hub: viaHub, ...(sameWork && { sameWork, pairs }), cpuUsPerCall: cpu });
  }
  return { runs, breakdown: await mcpBreakdown(opts.sequentialCalls, hub, upstream, setup, call) };
}

/** Sequential calls through the Hub, summing its Server-Timing phases, and the same calls made directly. */
async function mcpBreakdown(
  calls: number,
  hub: Server,
  upstream: Server,
  setup: McpSetup,
  call: (token: string) => () => RequestSpec,
): Promise<McpResult['breakdown']> {
  const timed = async (base: string, spec: RequestSpec) => {
    const started = performance.now();
    const res = await fetch(base + spec.path, { method: spec.method, headers: spec.headers, body: spec.body });
    await res.arrayBuffer();
    return { ms: performance.now() - started, timing: res.headers.get('server-timing') ?? '' };
  };
  const phases: Record<string, number> = {};
  let clientMs = 0;
  let directMs = 0;
  for (let i = 0; i < calls; i++) {
    const through = await timed(hub.base, call(setup.pat)());
    clientMs += through.ms;
    for (const part of through.timing.split(',')) {
      const m = /^\s*([\w-]+);dur=([\d.]+)/.exec(part);
      if (m) phases[m[1]!] = (phases[m[1]!] ?? 0) + Number(m[2]);
    }
    directMs += (await timed(upstream.base, call(setup.directAssertion)())).ms;
  }
  for (const name of Object.keys(phases)) phases[name]! /= calls;
  return { calls, clientMs: clientMs / calls, directMs: directMs / calls, phases };
}

/**
 * One MCP session, opened on the upstream directly (the proxies pass Mcp-Session-Id through): the headers every call
 * of the session sends, or the upstream's status when it opened none.
 */
export async function openMcpSession(
  upstreamBase: string,
  setup: McpSetup,
): Promise<{ headers: Record<string, string> | null; status: number }> {
  const common = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2025-06-18',
  };
  const init = await fetch(`${upstreamBase}/mcp`, {
    method: 'POST',
    headers: { ...common, ...bearer(setup.directAssertion) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } },
    }),
  });
  const sessionId = init.headers.get('mcp-session-id');
  await init.text();
  if (!init.ok || !sessionId) return { headers: null, status: init.status };
  const headers = { ...common, 'mcp-session-id': sessionId };
  await (
    await fetch(`${upstreamBase}/mcp`, {
      method: 'POST',
      headers: { ...headers, ...bearer(setup.directAssertion) },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
  ).text();
  return { headers, status: init.status };
}

/** A tools/call (echo) of the session with `token`, a new JSON-RPC id each time. */
export function mcpCall(headers: Record<string, string>) {
  let id = 1;
  return (token: string) => (): RequestSpec => ({
    method: 'POST',
    path: '/mcp',
    headers: { ...headers, ...bearer(token) },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: id++,
      method: 'tools/call',
      params: { name: 'echo', arguments: { text: 'hello from the bench' } },
    }),
  });
}

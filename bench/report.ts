/** The bench's results: the JSON document, the issue's targets, and the Markdown report. */
import { median, type LoadResult } from './load';
import type { MissResult, ScenarioResult, SizeResult } from './report-types';
import { searchMixScaling } from './search-mix';

export type { MissResult, SameWorkPair, ScenarioResult, SizeResult } from './report-types';

export interface McpResult {
  notApplicable?: string;
  /** sameWork: the same calls through the same-work proxy (bench/same-work-proxy.mjs; issue 36). */
  runs: {
    connections: number;
    direct: LoadResult;
    hub: LoadResult;
    sameWork?: LoadResult;
    /** The Hub and the same-work proxy in alternating windows (bench/mcp.ts), one entry per pair. */
    pairs?: McpPair[];
    /** CPU per call (µs, user + system from /proc) of the server measured and of the upstream, by run. */
    cpuUsPerCall?: Record<string, { server: number; upstream: number }>;
  }[];
  /** Where a call's time goes through the Hub: mean ms per Server-Timing phase, one connection. */
  breakdown?: { calls: number; clientMs: number; directMs: number; phases: Record<string, number> };
}

/** One pair of adjacent windows, the same-work proxy's then the Hub's: req/s and p50 (ms) of each. */
export interface McpPair {
  hub: number;
  sameWork: number;
  hubP50: number;
  sameWorkP50: number;
}

export interface Parity {
  scenario: string;
  ok: boolean;
  detail: string;
}

export interface Target {
  id: string;
  target: string;
  /** null: not measured in this run (or a reported figure, not a target). */
  met: boolean | null;
  result: string;
  /** A figure reported for comparison, not a target (issue 36: the bare-server and direct-upstream ratios). */
  figure?: true;
}

export interface BenchReport {
  mode: 'full' | 'short';
  startedAt: string;
  finishedAt: string;
  durationSec: number;
  machine: {
    cpus: number;
    cpuModel: string;
    memoryBytes: number;
    node: string;
    postgres: string;
    os: string;
    loadavgStart: number[];
    loadavgEnd: number[];
  };
  build: {
    commit: string;
    uncommittedFiles: number;
    buildId: string | null;
    builtAt: string | null;
    staleSources: string[];
  };
  config: { connections: number; durationSec: number; warmupSec: number; sizes: number[]; keysPerOrg: number };
  sizes: SizeResult[];
  mcp: McpResult;
  parity: Parity[];
  hubPeakRssBytes: number;
  targets: Target[];
  broken: string[];
  notes: string[];
}

const fmt = (n: number | null | undefined, digits = 1) =>
  n === null || n === undefined || Number.isNaN(n) ? '–' : n === Infinity ? '∞' : n.toFixed(digits);
const int = (n: number) => Math.round(n).toLocaleString('en-US');
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const sizeLabel = (n: number) => n.toLocaleString('en-US');
/** " (missed by N%)" when `ratio` is under `target`, else nothing. */
const shortBy = (ratio: number, target: number) =>
  ratio >= target ? '' : ` (missed by ${fmt(((target - ratio) / target) * 100, 0)}%)`;
/** " (missed by X<unit>)" when `value` is over `max`, else nothing. */
const overBy = (value: number, max: number, unit: string) =>
  value <= max ? '' : ` (missed by ${fmt(value - max, 2)}${unit})`;

function scenario(size: SizeResult | undefined, id: string) {
  return size?.scenarios.find((s) => s.id === id);
}

export function evaluateTargets(r: Omit<BenchReport, 'targets'>): Target[] {
  const targets: Target[] = [];
  for (const size of r.sizes) {
    const at = `at ${sizeLabel(size.templates)} templates`;
    for (const id of ['anon-list', 'key-list', 'key-search']) {
      const s = scenario(size, id);
      if (!s?.hub || !s.baseline) continue;
      const ratio = s.baseline.rps > 0 ? s.hub.rps / s.baseline.rps : s.hub.rps > 0 ? Infinity : 0;
      // A server none of whose requests finished within the run has no p99: it is the worse one.
      const p99Ok = Number.isNaN(s.hub.p99) ? false : Number.isNaN(s.baseline.p99) || s.hub.p99 <= s.baseline.p99;
      const met = ratio >= 2 && p99Ok;
      const parts = [
        `${fmt(ratio, 2)}× the baseline's throughput${ratio >= 2 ? '' : ` (missed by ${fmt(((2 - ratio) / 2) * 100, 0)}%: needs 2×)`}`,
      ];
      const p99Missed = Number.isNaN(s.hub.p99)
        ? ' (missed: no Hub request finished within the run)'
        : ` (missed: ${fmt((s.hub.p99 / s.baseline.p99 - 1) * 100, 0)}% worse)`;
      parts.push(`p99 ${fmt(s.hub.p99)} ms vs ${fmt(s.baseline.p99)} ms${p99Ok ? '' : p99Missed}`);
      targets.push({
        id: `${id}@${size.templates}`,
        target: `${s.title}: ≥ 2× baseline throughput, p99 no worse (${at})`,
        met,
        result: parts.join('; '),
      });
    }
    const get = scenario(size, 'key-get');
    if (get?.hub && get.baseline) {
      const ratio = get.baseline.rps > 0 ? get.hub.rps / get.baseline.rps : get.hub.rps > 0 ? Infinity : 0;
      targets.push({
        id: `key-get@${size.templates}`,
        target: `Get by slug with an instance key: ≥ 1× baseline throughput (${at})`,
        met: ratio >= 1,
        result: `${fmt(ratio, 2)}×${ratio >= 1 ? '' : ` (missed by ${fmt((1 - ratio) * 100, 0)}%)`}`,
      });
    }
    const poll = scenario(size, 'updates-inm');
    const list = scenario(size, 'key-list');
    if (poll?.notApplicable) {
      targets.push({
        id: `poll-304@${size.templates}`,
        target: `304 poll ≥ 3× a full list (${at})`,
        met: false,
        result: `not measurable: ${poll.notApplicable}`,
      });
    } else if (poll?.hub && list?.hub) {
      const ratio = list.hub.rps > 0 ? poll.hub.rps / list.hub.rps : poll.hub.rps > 0 ? Infinity : 0;
      const share = (poll.hub.statuses['304'] ?? 0) / Math.max(1, poll.hub.requests);
      const met = ratio >= 3 && share >= 0.99;
      const parts = [
        `${fmt(ratio, 2)}× the instance-key list's throughput${ratio >= 3 ? '' : ` (missed by ${fmt(((3 - ratio) / 3) * 100, 0)}%: needs 3×)`}`,
      ];
      parts.push(
        `${fmt(share * 100, 1)}% of answers were 304${share >= 0.99 ? '' : ' (missed: the server did not answer If-None-Match with 304)'}`,
      );
      // What a careful plain implementation reaches on the same machine: the same-work server's keyed 304 against
      // its cached list page (identity), from the edge scenarios of this size's run.
      const [plain304, plainList] = [scenario(size, 'edge-304')?.sameWork, scenario(size, 'edge-list')?.sameWork];
      if (plain304 && plainList?.rps)
        parts.push(
          `the same-work server: keyed 304 ${int(plain304.rps)} vs list page ${int(plainList.rps)} req/s = ` +
            `${fmt(plain304.rps / plainList.rps, 2)}×`,
        );
      targets.push({
        id: `poll-304@${size.templates}`,
        target: `304 poll ≥ 3× a full list (${at})`,
        met,
        result: parts.join('; '),
      });
    }
  }

  targets.push(...edgeTargets(r));

  // Issue 14: cache misses at the largest size against the 1,000-template run (p99 ≤ 40 ms since issue 23, was 60).
  const first = r.sizes.find((s) => s.templates === 1_000);
  const last = r.sizes.find((s) => s.templates === 100_000);
  for (const m of last?.misses ?? []) {
    const admin = m.id === 'miss-admin-list';
    const [p50Max, p99Max] = admin ? [Infinity, 100] : [10, 40];
    const p50Ok = m.one.p50 <= p50Max;
    const p99Ok = m.one.p99 <= p99Max;
    targets.push({
      id: `${m.id}-latency`,
      target: `${m.title}, cache miss at 100,000 templates: one connection ${admin ? '' : 'p50 ≤ 10 ms and '}p99 ≤ ${p99Max} ms`,
      met: p50Ok && p99Ok,
      result:
        `p50 ${fmt(m.one.p50, 2)} ms${p50Ok ? '' : ` (missed by ${fmt(m.one.p50 - p50Max, 2)} ms)`}, ` +
        `p99 ${fmt(m.one.p99, 2)} ms${p99Ok ? '' : ` (missed by ${fmt(m.one.p99 - p99Max, 2)} ms)`}` +
        (m.plain
          ? `; the same URLs as one plain SQL statement each, no HTTP: p50 ${fmt(m.plain.p50, 2)} ms, p99 ${fmt(m.plain.p99, 2)} ms`
          : ''),
    });
    const small = first?.misses?.find((x) => x.id === m.id);
    if (small && !admin) {
      const ratio = small.many.rps > 0 ? m.many.rps / small.many.rps : 0;
      targets.push({
        id: `${m.id}-scaling`,
        target: `${m.title}, cache miss: throughput at 100,000 ≥ 0.5× at 1,000 (${r.config.connections} connections)`,
        met: ratio >= 0.5,
        result:
          `${int(m.many.rps)} vs ${int(small.many.rps)} req/s = ${fmt(ratio, 2)}×${shortBy(ratio, 0.5)}` +
          (m.plainRps && small.plainRps
            ? `; the same URLs as plain SQL statements at ${r.config.connections} connections: ${int(m.plainRps)} vs ` +
              `${int(small.plainRps)} a second = ${fmt(m.plainRps / small.plainRps, 2)}×`
            : ''),
      });
    }
  }
  targets.push(...searchMixScaling(first, last));
  const adminLoad = scenario(last, 'admin-list');
  if (adminLoad?.hub && adminLoad.baseline) {
    const ratio = adminLoad.baseline.rps > 0 ? adminLoad.hub.rps / adminLoad.baseline.rps : Infinity;
    targets.push({
      id: 'admin-list-throughput',
      target: `Admin template list at 100,000 templates: ≥ 5× the baseline's throughput (${r.config.connections} connections)`,
      met: ratio >= 5,
      result: `${fmt(ratio, 2)}×${ratio >= 5 ? '' : ` (missed by ${fmt(((5 - ratio) / 5) * 100, 0)}%)`}`,
    });
  }

  const small = r.sizes.find((s) => s.templates === 1_000)?.searchProbe;
  const large = r.sizes.find((s) => s.templates === 100_000)?.searchProbe;
  if (small && large) {
    const ratio = large.hub.p50 / small.hub.p50;
    targets.push({
      id: 'search-scaling',
      target: 'Search at 100,000 templates within 2× its latency at 1,000',
      met: ratio <= 2,
      result:
        `p50 ${fmt(large.hub.p50, 2)} ms at 100,000 vs ${fmt(small.hub.p50, 2)} ms at 1,000 = ` +
        `${fmt(ratio, 2)}×${overBy(ratio, 2, '×')}`,
    });
  } else {
    targets.push({
      id: 'search-scaling',
      target: 'Search at 100,000 templates within 2× its latency at 1,000',
      met: null,
      result: 'not measured: this run did not seed both 1,000 and 100,000 templates (full mode does)',
    });
  }

  targets.push(...mcpTargets(r.mcp));

  const limit = 300 * 1024 * 1024;
  targets.push({
    id: 'rss',
    target: 'Hub RSS under load ≤ 300 MB (PostgreSQL)',
    met: r.hubPeakRssBytes > 0 ? r.hubPeakRssBytes <= limit : null,
    result: `peak ${mb(r.hubPeakRssBytes)}${r.hubPeakRssBytes <= limit ? '' : ` (missed by ${mb(r.hubPeakRssBytes - limit)})`}`,
  });
  return targets;
}

/**
 * Issue 36: /mcp against the same-work proxy on the same upstream: at one connection ≤ 0.3 ms added p50, at 32
 * connections ≥ 0.8× its throughput. Against calling the upstream directly: reported figures (the old targets,
 * ≤ 0.5 ms and ≥ 0.8× direct, are withdrawn: on one 2-core machine a proxy cannot reach 0.8× of its own upstream).
 */
function mcpTargets(mcp: McpResult): Target[] {
  const out: Target[] = [];
  const c1 = mcp.runs.find((run) => run.connections === 1);
  const cN = mcp.runs.find((run) => run.connections > 1);
  const notRun = `not applicable: ${mcp.notApplicable ?? 'not run'}`;
  const overhead = 'MCP: /mcp adds ≤ 0.3 ms p50 over the same-work proxy (one connection)';
  if (c1?.sameWork) {
    // Alternating windows: the median of each pair's difference (runs from before the pairs: one difference).
    const differences = c1.pairs?.map((p) => p.hubP50 - p.sameWorkP50);
    const added = differences?.length ? median(differences) : c1.hub.p50 - c1.sameWork.p50;
    const each = differences
      ? `; median of ${differences.length} alternating pairs: ${differences.map((d) => fmt(d, 2)).join(', ')}`
      : '';
    out.push({
      id: 'mcp-overhead',
      target: overhead,
      met: added <= 0.3,
      result:
        `adds ${fmt(added, 2)} ms (p50 ${fmt(c1.hub.p50, 2)} ms through /mcp vs ${fmt(c1.sameWork.p50, 2)} ms ` +
        `through the same-work proxy${each})${overBy(added, 0.3, ' ms')}`,
    });
  } else out.push({ id: 'mcp-overhead', target: overhead, met: null, result: c1 ? 'not measured' : notRun });
  if (c1)
    out.push({
      id: 'mcp-overhead-direct',
      target: 'MCP: /mcp p50 over calling the upstream directly (one connection)',
      met: null,
      figure: true,
      result: `adds ${fmt(c1.hub.p50 - c1.direct.p50, 2)} ms (p50 ${fmt(c1.hub.p50, 2)} ms through /mcp vs ${fmt(c1.direct.p50, 2)} ms direct)`,
    });
  if (cN) {
    const concurrency = `MCP at ${cN.connections} connections: ≥ 0.8× the same-work proxy's throughput`;
    if (cN.sameWork) {
      const ratios = cN.pairs?.map((p) => (p.sameWork > 0 ? p.hub / p.sameWork : 0));
      const ratio = ratios?.length ? median(ratios) : cN.sameWork.rps > 0 ? cN.hub.rps / cN.sameWork.rps : 0;
      const each = ratios
        ? `; median of ${ratios.length} alternating pairs: ${ratios.map((r) => fmt(r, 2)).join(', ')}`
        : '';
      out.push({
        id: 'mcp-concurrency',
        target: concurrency,
        met: ratio >= 0.8,
        result:
          `${fmt(ratio, 2)}× (${int(cN.hub.rps)} vs ${int(cN.sameWork.rps)} req/s${each})${shortBy(ratio, 0.8)}; ` +
          `p50 ${fmt(cN.hub.p50, 2)} vs ${fmt(cN.sameWork.p50, 2)} ms`,
      });
    } else out.push({ id: 'mcp-concurrency', target: concurrency, met: null, result: 'not measured' });
    const ratio = cN.direct.rps > 0 ? cN.hub.rps / cN.direct.rps : 0;
    out.push({
      id: 'mcp-concurrency-direct',
      target: `MCP at ${cN.connections} connections: /mcp against calling the upstream directly`,
      met: null,
      figure: true,
      result: `${fmt(ratio, 2)}× (${int(cN.hub.rps)} vs ${int(cN.direct.rps)} req/s); adds ${fmt(cN.hub.p50 - cN.direct.p50, 2)} ms p50`,
    });
  }
  return out;
}

/**
 * The transport edge (first size measured). Issue 36: the Hub against the same-work server (the spec's work done
 * once) is the target, ≥ 0.8× for each cached answer; the bare node:http server's ratios (issues 12, 23) are figures.
 */
function edgeTargets(r: Omit<BenchReport, 'targets'>): Target[] {
  const size = r.sizes[0];
  const at = size ? ` (at ${sizeLabel(size.templates)} templates)` : '';
  const out: Target[] = [];
  const versusBare = (id: string, target: string, share: number) => {
    const s = scenario(size, id);
    if (!s?.hub || !s.baseline)
      return out.push({
        id,
        target: target + at,
        met: null,
        result: `not measured${s?.notApplicable ? `: ${s.notApplicable}` : ''}`,
      });
    const ratio = s.baseline.rps > 0 ? s.hub.rps / s.baseline.rps : 0;
    out.push({
      id,
      target: target + at,
      met: null,
      figure: true,
      result: `${fmt(ratio, 2)}× (${int(s.hub.rps)} vs ${int(s.baseline.rps)} req/s; issue 23 asked ${share}×)`,
    });
  };
  const versusSameWork = (id: string, what: string) => {
    const s = scenario(size, id);
    const target = `${what}: ≥ 0.80× the same-work server${at}`;
    if (!s?.hub || !s.sameWork)
      return out.push({
        id: `samework-${id}`,
        target,
        met: null,
        result: `not measured${s?.notApplicable ? `: ${s.notApplicable}` : ''}`,
      });
    const { ratio, hubRps, hubCpuUs, pairs } = versusSameWorkOf(s);
    const cpu = s.cpuUs?.sameWork ? `; CPU per request ${fmt(hubCpuUs, 1)} vs ${fmt(s.cpuUs.sameWork, 1)} µs` : '';
    const each = pairs
      ? `; median of ${pairs.length} alternating pairs: ${pairs.map((r) => fmt(r, 2)).join(', ')}`
      : '';
    out.push({
      id: `samework-${id}`,
      target,
      met: ratio >= 0.8,
      result: `${fmt(ratio, 2)}× (${int(hubRps)} vs ${int(s.sameWork.rps)} req/s${cpu}${each})${shortBy(ratio, 0.8)}`,
    });
  };
  // Issue 36: against the same-work server, same run.
  versusSameWork('edge-304', '304 poll with an instance key');
  versusSameWork('edge-304-anon', 'Anonymous 304');
  versusSameWork('edge-list', 'Cached list page, identity');
  versusSameWork('edge-list-compressed', 'Cached list page, br');
  // Issue 23's ratios against bare servers at the physical limit (precomputed answers, static load): figures now.
  versusBare('edge-304', '304 poll with an instance key against the bare 304 server', 0.5);
  versusBare('edge-304-anon', 'Anonymous 304 against the bare 304 server', 0.6);
  versusBare('edge-list', 'Cached list page, identity, against the bare server serving the same body', 0.8);
  const identity = scenario(size, 'edge-list')?.hub;
  const compressed = scenario(size, 'edge-list-compressed')?.hub;
  const bytes = size?.listBytes;
  if (identity && compressed && bytes) {
    const share = bytes.compressed / bytes.identity;
    const met = share <= 0.15 && compressed.rps >= identity.rps;
    out.push({
      id: 'edge-compressed',
      target: `Cached list page with Accept-Encoding: gzip, br: body ≤ 15% of identity, throughput ≥ identity${at}`,
      met,
      result:
        `${bytes.encoding} ${int(bytes.compressed)} of ${int(bytes.identity)} bytes = ${fmt(share * 100, 1)}%${share <= 0.15 ? '' : ' (missed)'}; ` +
        `${int(compressed.rps)} vs ${int(identity.rps)} req/s = ${fmt(compressed.rps / identity.rps, 2)}×${compressed.rps >= identity.rps ? '' : ' (missed)'}`,
    });
  } else {
    out.push({
      id: 'edge-compressed',
      target: `Cached list page with Accept-Encoding: gzip, br: body ≤ 15% of identity, throughput ≥ identity${at}`,
      met: null,
      result: 'not measured',
    });
  }
  return out;
}

const mark = (t: Target) => (t.figure ? 'figure' : t.met === null ? 'n/a' : t.met ? 'met' : '**missed**');

function statusNote(result: LoadResult | null | undefined, expect304 = false): string {
  if (!result) return '';
  if (result.requests === 0) return ' ⚠ no request finished within the run';
  const other = Object.entries(result.statuses).filter(([code]) => code !== '200' && !(expect304 && code === '304'));
  const parts = other.map(([code, n]) => `${n}× ${code}`);
  if (result.errors) parts.push(`${result.errors} errors`);
  return parts.length ? ` ⚠ ${parts.join(', ')}` : '';
}

function machineLine(r: BenchReport) {
  const m = r.machine;
  return (
    `Machine: ${m.cpus} cores (${m.cpuModel}), ${(m.memoryBytes / 1024 ** 3).toFixed(1)} GiB memory, Node ${m.node}, ${m.postgres}, ${m.os}. ` +
    `Load average at start ${m.loadavgStart.map((n) => n.toFixed(2)).join(' ')}, at end ${m.loadavgEnd.map((n) => n.toFixed(2)).join(' ')}.`
  );
}

function targetsTable(r: BenchReport): string[] {
  return [
    '| Target | Result | |',
    '|---|---|---|',
    ...r.targets.map((t) => `| ${t.target} | ${t.result} | ${mark(t)} |`),
  ];
}

/**
 * An edge scenario against the same-work server: the median over its alternating pairs of windows (runs from before
 * the pairs: the Hub's run against the same-work server's), with the Hub's req/s and CPU per request in those windows.
 */
export function versusSameWorkOf(s: ScenarioResult): {
  ratio: number;
  hubRps: number;
  hubCpuUs: number;
  pairs?: number[];
} {
  if (s.pairs?.length) {
    const pairs = s.pairs.map((p) => (p.sameWork > 0 ? p.hub / p.sameWork : 0));
    return {
      ratio: median(pairs),
      hubRps: median(s.pairs.map((p) => p.hub)),
      hubCpuUs: median(s.pairs.map((p) => p.hubCpuUs)),
      pairs,
    };
  }
  const hubRps = s.hub?.rps ?? 0;
  const sameWorkRps = s.sameWork?.rps ?? 0;
  return { ratio: sameWorkRps > 0 ? hubRps / sameWorkRps : 0, hubRps, hubCpuUs: s.cpuUs?.hub ?? NaN };
}

function scenarioTable(size: SizeResult): string[] {
  const out = [
    '| Scenario | Hub req/s | Hub p50 ms | Hub p99 ms | Baseline req/s | Baseline p50 ms | Baseline p99 ms | Throughput vs baseline | Hub RSS |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const edge = size.scenarios.filter((s) => s.sameWork);
  for (const s of size.scenarios) {
    if (s.notApplicable) {
      out.push(`| ${s.title} | n/a | | | | | | | ${s.notApplicable} |`);
      continue;
    }
    const h = s.hub;
    const b = s.baseline;
    const hubNote = statusNote(h, s.id === 'updates-inm' || s.id.startsWith('edge-304'));
    const ratio = h && b ? `${fmt(h.rps / b.rps, 2)}×` : '–';
    out.push(
      `| ${s.title}${hubNote} | ${h ? int(h.rps) : '–'} | ${fmt(h?.p50, 2)} | ${fmt(h?.p99, 2)} | ` +
        `${b ? int(b.rps) : '–'}${statusNote(b, s.id.startsWith('edge-304'))} | ${fmt(b?.p50, 2)} | ${fmt(b?.p99, 2)} | ` +
        `${ratio} | ${h ? mb(h.rssPeakBytes) : '–'} |`,
    );
  }
  if (edge.length === 0) return out;
  // Issue 36: the edge scenarios against the same-work server (the Hub's requests, the spec's work done once).
  out.push(
    '',
    '| Edge scenario | Hub req/s | Same-work req/s | Hub ÷ same-work | Bare req/s | Hub ÷ bare | CPU µs/request: Hub, same-work, bare |',
    '|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const s of edge) {
    const [h, w, b] = [s.hub, s.sameWork, s.baseline];
    const ratio = (x?: LoadResult | null, y?: LoadResult | null) =>
      x && y && y.rps > 0 ? `${fmt(x.rps / y.rps, 2)}×` : '–';
    const paired = versusSameWorkOf(s);
    out.push(
      `| ${s.title} | ${int(paired.hubRps)} | ${w ? int(w.rps) : '–'}${statusNote(w, s.id.startsWith('edge-304'))} | ${fmt(paired.ratio, 2)}× | ` +
        `${b ? int(b.rps) : '–'} | ${ratio(h, b)} | ${s.cpuUs ? `${fmt(paired.hubCpuUs)}, ${fmt(s.cpuUs.sameWork)}, ${fmt(s.cpuUs.bare)}` : '–'} |`,
    );
  }
  const p = size.paced;
  if (p)
    out.push(
      '',
      `The keyed 304 at one Hub's share of the fleet's pace (${p.rate} requests/s over ${p.connections} connections, ` +
        `${p.durationSec} s; bench/paced.ts): CPU per request Hub ${fmt(p.hub.cpuUs, 0)} µs (p50 ${fmt(p.hub.p50, 2)} ms), ` +
        `same-work server ${fmt(p.sameWork.cpuUs, 0)} µs (p50 ${fmt(p.sameWork.p50, 2)} ms): each request wakes the process ` +
        'on its own, which the saturated scenarios above spread over many.',
    );
  return out;
}

function missTable(misses: MissResult[], connections: number): string[] {
  return [
    `| Cache miss | p50 ms (1 conn.) | p99 ms (1 conn.) | req/s (${connections} conn.) | p50 ms (${connections} conn.) |`,
    '|---|---:|---:|---:|---:|',
    ...misses.map(
      (m) =>
        `| ${m.title}${statusNote(m.one)} | ${fmt(m.one.p50, 2)} | ${fmt(m.one.p99, 2)} | ${int(m.many.rps)}${statusNote(m.many)} | ${fmt(m.many.p50, 2)} |`,
    ),
  ];
}

/** The section of docs/benchmarks.md between <!-- bench:start --> and <!-- bench:end --> (full mode). */
export function readmeSection(r: BenchReport): string {
  const largest = r.sizes.at(-1);
  const out = [
    `Last full run: ${r.startedAt.slice(0, 10)}, commit ${r.build.commit.slice(0, 10)}. ${machineLine(r)}`,
    '',
    ...targetsTable(r),
  ];
  if (largest)
    out.push(
      '',
      `At ${sizeLabel(largest.templates)} templates (${r.config.connections} connections, ${r.config.durationSec} s per scenario):`,
      '',
      ...scenarioTable(largest),
    );
  if (largest?.misses?.length)
    out.push(
      '',
      `Cache misses at ${sizeLabel(largest.templates)} templates:`,
      '',
      ...missTable(largest.misses, r.config.connections),
    );
  out.push(
    '',
    'All sizes, the MCP proxy, search latency and query plans: [bench/results/latest.md](../bench/results/latest.md).',
  );
  return out.join('\n');
}

export function markdown(r: BenchReport): string {
  const out: string[] = [];
  out.push(`# Hub benchmark (${r.mode} mode)`);
  out.push('');
  out.push(machineLine(r));
  out.push('');
  out.push(
    `Run ${r.startedAt} (${Math.round(r.durationSec)} s); commit ${r.build.commit.slice(0, 10)}` +
      `${r.build.uncommittedFiles ? ` with ${r.build.uncommittedFiles} uncommitted files in the tree` : ''}; ` +
      `production build ${r.build.buildId ?? '?'}${r.build.builtAt ? ` of ${r.build.builtAt}` : ''}. ` +
      `Load: autocannon, ${r.config.connections} connections, ${r.config.durationSec} s per scenario after ${r.config.warmupSec} s of warm-up, loopback; ` +
      `${r.config.keysPerOrg * 3} instance keys in 3 organizations, rotated per request.`,
  );
  if (r.build.staleSources.length)
    out.push(
      '',
      `⚠ The production build is older than ${r.build.staleSources.length} source files ` +
        `(e.g. ${r.build.staleSources.slice(0, 3).join(', ')}): run with --build to measure the current code.`,
    );
  out.push('');
  out.push('## Targets');
  out.push('');
  out.push(...targetsTable(r));
  out.push('');

  for (const size of r.sizes) {
    out.push(`## ${sizeLabel(size.templates)} templates`);
    out.push('');
    out.push(`Hub peak RSS ${mb(size.hubPeakRssBytes)}. Seeded in ${fmt(size.seedSeconds)} s.`);
    out.push('');
    out.push(...scenarioTable(size));
    const notes = size.scenarios.filter((s) => s.note).map((s) => `- ${s.title}: ${s.note}`);
    if (notes.length) out.push('', ...notes);
    if (size.searchProbe) {
      const p = size.searchProbe;
      out.push('');
      out.push(
        `Search latency, one connection, ${p.searches} different searches for one product name each (instance key): ` +
          `Hub p50 ${fmt(p.hub.p50, 2)} ms, p99 ${fmt(p.hub.p99, 2)} ms; baseline p50 ${fmt(p.baseline.p50, 2)} ms, p99 ${fmt(p.baseline.p99, 2)} ms.`,
      );
    }
    if (size.misses?.length) {
      out.push('');
      out.push(
        `Cache misses (every request distinct): one connection, ${size.misses[0]!.one.requests} requests; then ${r.config.connections} connections.`,
      );
      out.push('');
      out.push(...missTable(size.misses, r.config.connections));
    }
    if (size.explain.length) {
      out.push('');
      out.push(`EXPLAIN ANALYZE (${size.explain[0]!.source}${size.explainNote ? `; ${size.explainNote}` : ''}):`);
      out.push('');
      out.push('| Query | Index used | Sequential scan of | Execution ms |');
      out.push('|---|---|---|---:|');
      for (const e of size.explain) {
        const used = e.usesIndex
          ? e.indexesSeen.join(', ')
          : e.forcedUsesIndex
            ? 'none: the planner preferred another plan (with enable_seqscan off it uses the index)'
            : `**none**, not even with enable_seqscan off (expected ${e.indexes.join(' or ')})`;
        const seq =
          e.seqScans === undefined
            ? '–'
            : e.seqScans.length === 0
              ? 'none'
              : `${e.seqScans.join(', ')}${e.forcedUsesIndex ? " (planner's choice; the index when forced)" : ''}`;
        out.push(`| ${e.title} | ${used} | ${seq} | ${fmt(e.executionMs, 3)} |`);
      }
    }
    out.push('');
  }

  out.push('## MCP proxy');
  out.push('');
  if (r.mcp.notApplicable) {
    out.push(`Not applicable: ${r.mcp.notApplicable}.`);
  } else {
    out.push(
      "A JSON-RPC tools/call (echo) in one MCP session, through the Hub's /mcp with a personal access token " +
        "vs. straight to the same upstream (MCP SDK server verifying the Hub's assertion), and through the same-work " +
        'proxy (bench/same-work-proxy.mjs: the same token, the work the spec requires written once).',
    );
    out.push('');
    out.push(
      '| Connections | Direct req/s | Direct p50 ms | Same-work req/s | Same-work p50 ms | /mcp req/s | /mcp p50 ms | ' +
        '/mcp p99 ms | Added p50 ms over same-work (direct) |',
    );
    out.push('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const run of r.mcp.runs) {
      const w = run.sameWork;
      out.push(
        `| ${run.connections} | ${int(run.direct.rps)}${statusNote(run.direct)} | ${fmt(run.direct.p50, 2)} | ` +
          `${w ? int(w.rps) : '–'}${statusNote(w)} | ${fmt(w?.p50, 2)} | ` +
          `${int(run.hub.rps)}${statusNote(run.hub)} | ${fmt(run.hub.p50, 2)} | ${fmt(run.hub.p99, 2)} | ` +
          `${w ? fmt(run.hub.p50 - w.p50, 2) : '–'} (${fmt(run.hub.p50 - run.direct.p50, 2)}) |`,
      );
    }
  }
  if (r.mcp.breakdown) {
    const b = r.mcp.breakdown;
    const phases = Object.values(b.phases).reduce((x, y) => x + y, 0);
    out.push('');
    out.push(
      `Where the time goes (mean of ${b.calls} sequential calls, one connection): ${fmt(b.clientMs, 3)} ms through ` +
        `the Hub vs ${fmt(b.directMs, 3)} ms straight to the instance ` +
        `(+${fmt(b.clientMs - b.directMs, 3)} ms). Inside the Hub (its Server-Timing header): ` +
        Object.entries(b.phases)
          .map(([name, ms]) => `${name} ${fmt(ms, 3)} ms`)
          .join(', ') +
        " (upstream: the Hub's keep-alive client until the instance's headers). " +
        `The remaining ${fmt(b.clientMs - phases, 3)} ms are the client's own request cost ` +
        `(also in the direct figure) plus the Hub's HTTP in and out: parsing both requests, relaying the answer back.`,
    );
  }
  out.push('');
  out.push('## Response parity (Hub vs baseline, same request)');
  out.push('');
  for (const p of r.parity) out.push(`- ${p.scenario}: ${p.ok ? 'same body' : `**differs**: ${p.detail}`}`);
  if (r.notes.length || r.broken.length) {
    out.push('');
    out.push('## Notes');
    out.push('');
    for (const b of r.broken) out.push(`- **Broken measurement**: ${b}`);
    for (const n of r.notes) out.push(`- ${n}`);
  }
  const largest = r.sizes.at(-1);
  if (largest?.explain.length) {
    out.push('');
    out.push(`<details><summary>Query plans at ${sizeLabel(largest.templates)} templates</summary>`);
    out.push('');
    for (const e of largest.explain) {
      out.push(`**${e.title}**`);
      out.push('');
      out.push('```');
      out.push(e.plan);
      out.push('```');
      if (e.forcedPlan) {
        out.push('With enable_seqscan off:');
        out.push('```');
        out.push(e.forcedPlan);
        out.push('```');
      }
      out.push('');
    }
    out.push('</details>');
  }
  out.push('');
  return out.join('\n');
}

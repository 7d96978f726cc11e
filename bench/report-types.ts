/** The result types of one run's sizes and scenarios (bench/report.ts re-exports them; bench/search-mix.ts reads them). */
import type { ExplainResult } from './explain';
import type { LoadResult } from './load';

export interface ScenarioResult {
  id: string;
  title: string;
  /** How the request looks (path and credential). */
  request: string;
  hub: (LoadResult & { rssPeakBytes: number }) | null;
  baseline: LoadResult | null;
  /** Why the scenario was not run. */
  notApplicable?: string;
  note?: string;
  /** The `baseline` column is the bare node:http server serving the same precomputed bytes. */
  againstBare?: boolean;
  /** Edge scenarios: the same-work server (bench/same-work-server.mjs) with the Hub's requests (issue 36). */
  sameWork?: LoadResult | null;
  /** Edge scenarios: the Hub and the same-work server in alternating windows (bench/run.ts), one entry per pair. */
  pairs?: SameWorkPair[];
  /** Edge scenarios: each server's CPU per request (user + system, /proc), µs. */
  cpuUs?: { hub: number; bare: number; sameWork?: number };
}

/** A cache-miss scenario: every request distinct, so the response cache never answers. */
export interface MissResult {
  id: string;
  title: string;
  request: string;
  /** One connection: a request's own cost. */
  one: LoadResult;
  /** Full concurrency: throughput. */
  many: LoadResult;
  /** The search mix only: the same URLs on one connection as a plain SQL statement each (bench/plain-search.ts). */
  plain?: { requests: number; p50: number; p99: number; max: number };
  /** The search mix only: those statements at the run's connections, statements a second (plainSearchMixRate). */
  plainRps?: number;
}

export interface SizeResult {
  templates: number;
  seedSeconds: number;
  scenarios: ScenarioResult[];
  searchProbe: { searches: number; hub: LoadResult; baseline: LoadResult } | null;
  /** Absent in results of runs before issue 14. */
  misses?: MissResult[];
  explain: ExplainResult[];
  explainNote: string | null;
  hubPeakRssBytes: number;
  /** Body bytes of the cached list page (acme, 50 templates) without and with Accept-Encoding: gzip, br. */
  listBytes?: { identity: number; compressed: number; encoding: string };
  /** The keyed 304 at one Hub's share of the fleet's pace (bench/paced.ts): CPU per request of both servers. */
  paced?: PacedResult;
}

export interface PacedResult {
  rate: number;
  connections: number;
  durationSec: number;
  hub: { requests: number; cpuUs: number; p50: number; p99: number };
  sameWork: { requests: number; cpuUs: number; p50: number; p99: number };
}

/** One pair of adjacent windows, the Hub's then the same-work server's: req/s and CPU per request (µs) of each. */
export interface SameWorkPair {
  hub: number;
  sameWork: number;
  hubCpuUs: number;
  sameWorkCpuUs: number;
}

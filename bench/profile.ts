/**
 * Summarizes a V8 CPU profile of the Hub (node --cpu-prof) taken under a load of one kind of request, as
 * microseconds of CPU per request for each step of the edge's per-request path:
 *
 *   npx tsx bench/profile.ts <file.cpuprofile> <requests answered while profiled> [--top 25]
 *
 * Every sample is charged to the innermost frame that names a step (the table below, checked from the leaf
 * towards the root), so nested steps are not counted twice (the credential check inside the rate limiter's
 * admit() is the credential check's). Samples in none of them are split into Node's HTTP machinery, the garbage
 * collector, idle time and the rest. Used by `npm run bench -- --only edge --profile` (bench/run.ts) and for
 * docs/performance.md.
 */
import fs from 'node:fs';
import { SourceMap, type SourceMapping } from 'node:module';
import { fileURLToPath } from 'node:url';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber?: number;
}
interface ProfileNode {
  id: number;
  callFrame: Frame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
  endTime: number;
}

/** A step of the per-request path and how its frames are recognized (first match, innermost frame first). */
export const STEPS: { step: string; match: (f: Frame) => boolean }[] = [
  {
    step: 'database statements and MCP call records (pats.ts, drizzle, postgres.js)',
    match: (f) => f.url.endsWith('server/domain/pats.ts') || /drizzle-orm|postgres\/src/.test(f.url),
  },
  { step: 'MCP: proxy (token check, body, assertion, forward, relay)', match: (f) => /server\/mcp\//.test(f.url) },
  { step: 'request id', match: (f) => f.functionName === 'requestIdOf' || f.functionName === 'randomUUID' },
  { step: 'access line (pino)', match: (f) => /\/pino|\/sonic-boom|server\/log\.ts/.test(f.url) },
  { step: 'ETag compare and answer headers', match: (f) => f.url.endsWith('server/api/responseCache.ts') },
  {
    step: 'credential check',
    match: (f) => /server\/auth\/|server\/domain\/tokens\.ts|server\/api\/trpc\.ts/.test(f.url),
  },
  {
    step: 'rate-limit count',
    match: (f) => f.url.endsWith('server/api/rateLimit.ts') || f.url.endsWith('server/domain/support/addresses.ts'),
  },
  {
    step: 'route match and input',
    match: (f) => f.url.endsWith('server/api/rest.ts') || /trpc-to-openapi/.test(f.url),
  },
  {
    step: 'edge: security headers, request context, in-flight set',
    match: (f) => f.url.endsWith('server/http/edge.ts'),
  },
  { step: 'REST adapter (headers, answer write)', match: (f) => f.url.endsWith('server/http/nodeHttp.ts') },
];

/**
 * Frames of a bundle with a source map (the production server, dist/server/serve.mjs) point back to the file they
 * were compiled from (server/api/rest.ts, node_modules/pino/…), so the steps above recognize them. In place.
 */
export function withOriginalSources(profile: Profile): Profile {
  const maps = new Map<string, SourceMap | null>();
  const mapOf = (url: string) => {
    if (!maps.has(url)) {
      let map: SourceMap | null = null;
      try {
        const file = fileURLToPath(url);
        map = new SourceMap(JSON.parse(fs.readFileSync(`${file}.map`, 'utf8')));
      } catch {
        // not a file URL, or no source map beside it: the frame stays as it is
      }
      maps.set(url, map);
    }
    return maps.get(url);
  };
  for (const node of profile.nodes) {
    const frame = node.callFrame;
    const found = frame.url.startsWith('file:')
      ? mapOf(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber ?? 0)
      : undefined;
    const entry = found && 'originalSource' in found ? (found as SourceMapping) : undefined;
    if (entry) {
      frame.url = new URL(entry.originalSource, frame.url).href;
      frame.lineNumber = entry.originalLine;
      frame.columnNumber = entry.originalColumn;
    }
  }
  return profile;
}

export interface ProfileSummary {
  totalMs: number;
  /** The process's CPU time the rows were scaled to, when given (system time is the kernel's row). */
  measuredCpu?: CpuTimes;
  rows: { step: string; ms: number; usPerRequest: number; share: number }[];
  topSelf: { name: string; ms: number; usPerRequest: number }[];
}

/**
 * `window`: only samples taken between these two CLOCK_MONOTONIC instants in microseconds (V8's profile clock
 * and process.hrtime's are the same on Linux), e.g. one scenario's load of a bench run.
 */
/**
 * Native frames that are a system call on a socket. Their samples are wall time: a process descheduled inside
 * the call (the loopback peer it just woke takes the core) keeps being sampled there, so they are not scaled
 * like the rest; the kernel's part is the process's system time instead (summarize()).
 */
const KERNEL_STEP = 'kernel: socket reads and writes, epoll (system time, /proc)';
const SYSCALL_FRAME =
  /^(writev|writeBuffer|writeString|writeLatin1String|writeUtf8String|writeAsciiString|writeUcs2String|readStart|shutdown)$/;

/** The process's CPU time over a window, from /proc: user (its own code) and system (the kernel, on its behalf). */
export interface CpuTimes {
  userUs: number;
  systemUs: number;
}

export function summarize(
  profile: Profile,
  requests: number,
  top = 25,
  window?: { fromUs: number; toUs: number },
  cpu?: CpuTimes,
): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const stepOf = new Map<number, string>();
  const classify = (id: number): string => {
    const known = stepOf.get(id);
    if (known) return known;
    let step: string | undefined;
    for (let at: number | undefined = id; at !== undefined && !step; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      step = STEPS.find((s) => s.match(frame))?.step;
    }
    const leaf = byId.get(id)!.callFrame;
    if (!step) {
      if (leaf.functionName === '(garbage collector)') step = 'garbage collector';
      else if (leaf.functionName === '(idle)' || leaf.functionName === '(program)')
        step = `${leaf.functionName.slice(1, -1)} (V8)`;
      else if (/^node:/.test(leaf.url) || leaf.url === '')
        step = 'node:http and the event loop (parse, socket write, timers)';
      else step = 'other';
    }
    stepOf.set(id, step);
    return step;
  };
  // Sampled time is wall time: a sample taken while the process waited for a core carries the wait. With the
  // process's CPU time from /proc, the system time becomes the kernel's row, and the busy samples (idle dropped, and
  // the socket calls' too: their cost is the kernel's) share the user time in proportion.
  const measured = cpu !== undefined && Number.isFinite(cpu.userUs) && Number.isFinite(cpu.systemUs);
  const perStep = new Map<string, number>();
  const perSelf = new Map<string, number>();
  let total = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    const us = profile.timeDeltas[i] ?? 0;
    at += us;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    const step = classify(id);
    const f = byId.get(id)!.callFrame;
    if (measured && (step === 'idle (V8)' || (f.url === '' && SYSCALL_FRAME.test(f.functionName)))) return;
    total += us;
    perStep.set(step, (perStep.get(step) ?? 0) + us);
    const name = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules\/)?/, '')}:${f.lineNumber + 1}`;
    perSelf.set(name, (perSelf.get(name) ?? 0) + us);
  });
  const busy = total - (perStep.get('idle (V8)') ?? 0);
  const scale = measured && busy > 0 ? cpu.userUs / busy : 1;
  if (measured) perStep.set(KERNEL_STEP, cpu.systemUs / scale);
  const accounted = measured ? cpu.userUs + cpu.systemUs : total;
  const rows = [...perStep.entries()]
    .map(([step, us]) => ({
      step,
      ms: (us * scale) / 1000,
      usPerRequest: (us * scale) / requests,
      share: (us * scale) / accounted,
    }))
    .sort((a, b) => b.ms - a.ms);
  const topSelf = [...perSelf.entries()]
    .filter(([name]) => !measured || !name.startsWith('(idle)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, us]) => ({ name, ms: (us * scale) / 1000, usPerRequest: (us * scale) / requests }));
  return { totalMs: total / 1000, rows, topSelf, measuredCpu: measured ? cpu : undefined };
}

export function summaryMarkdown(s: ProfileSummary, requests: number): string {
  const busy = s.rows.filter((r) => r.step !== 'idle (V8)').reduce((a, r) => a + r.usPerRequest, 0);
  const basis =
    s.measuredCpu !== undefined
      ? "the process's CPU time from /proc: system time as the kernel's row, user time split by the profile's busy samples"
      : 'sampled time, idle excluded (on a busy machine this includes time the process waited for a core)';
  return [
    `Profiled ${(s.totalMs / 1000).toFixed(1)} s, ${requests.toLocaleString('en-US')} requests: ${busy.toFixed(1)} µs per request (${basis}).`,
    '',
    '| Step | µs per request | Share of the profile |',
    '|---|---:|---:|',
    ...s.rows.map((r) => `| ${r.step} | ${r.usPerRequest.toFixed(1)} | ${(r.share * 100).toFixed(1)}% |`),
    '',
    'Heaviest functions by self time:',
    '',
    '| Function | µs per request |',
    '|---|---:|',
    ...s.topSelf.map((t) => `| \`${t.name}\` | ${t.usPerRequest.toFixed(2)} |`),
  ].join('\n');
}

if (process.argv[1]?.endsWith('profile.ts')) {
  const [file, requests, from, to] = process.argv.slice(2);
  if (!file || !Number(requests)) {
    console.error('usage: npx tsx bench/profile.ts <file.cpuprofile> <requests> [<from µs> <to µs> (CLOCK_MONOTONIC)]');
    process.exit(64);
  }
  const profile = withOriginalSources(JSON.parse(fs.readFileSync(file, 'utf8')) as Profile);
  const window = from && to ? { fromUs: Number(from), toUs: Number(to) } : undefined;
  console.log(summaryMarkdown(summarize(profile, Number(requests), 25, window), Number(requests)));
}

/** A measured run of the Hub (an edge scenario or an MCP run): its time window, requests and CPU time. */
export interface ProfiledWindow {
  id: string;
  title: string;
  fromUs: number;
  toUs: number;
  requests: number;
  /** The Hub's CPU time over the window (user, system), when measured. */
  cpu?: CpuTimes;
}

/**
 * Child processes of the bench: started in their own process group, logged to a file, killed (the whole
 * group) on stop and on any exit of the bench, and sampled for memory through /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export interface Child {
  name: string;
  proc: ChildProcess;
  log: string;
  /** Resolves when the process has exited. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

const running = new Set<Child>();

/** Kills every process group still running (synchronously: usable from an 'exit' handler). */
export function killAllNow() {
  for (const child of running) {
    try {
      process.kill(-child.proc.pid!, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
  running.clear();
}

export function startChild(
  name: string,
  command: string,
  args: string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv; log: string },
): Child {
  const fd = fs.openSync(opts.log, 'w');
  const proc = spawn(command, args, { cwd: opts.cwd, env: opts.env, detached: true, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const child: Child = {
    name,
    proc,
    log: opts.log,
    exited,
    async stop() {
      if (!running.has(child)) return;
      running.delete(child);
      const signal = (sig: NodeJS.Signals) => {
        try {
          process.kill(-proc.pid!, sig);
        } catch {
          /* gone */
        }
      };
      signal('SIGTERM');
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 5_000).unref());
      if ((await Promise.race([exited, timeout])) === 'timeout') signal('SIGKILL');
      else signal('SIGKILL'); // stray grandchildren of the group
    },
  };
  running.add(child);
  return child;
}

/**
 * The production server's environment in the bench, as an operator runs it (`npm start` refuses NODE_ENV=production
 * without these): an OpenID provider configured (discovery happens at sign-in, which the bench does not do), the
 * master secret, the default log level; upstreams on loopback allowed (the MCP upstream), and the rate limits lifted:
 * the load comes from one loopback address at thousands of requests per second, so the server is measured, not its
 * limits. `extra` is added last (the database, the Hub's URL).
 */
export function benchServerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NODE_ENV: 'production',
    NEXT_TELEMETRY_DISABLED: '1',
    OIDC_ISSUER: 'https://issuer.bench.invalid',
    OIDC_CLIENT_ID: 'hub-bench',
    OIDC_CLIENT_SECRET: 'hub-bench-secret',
    HUB_SECRET: process.env.HUB_SECRET,
    HUB_LOG_LEVEL: 'info',
    HUB_ALLOW_PRIVATE_UPSTREAMS: 'true',
    ...Object.fromEntries(
      ['ANONYMOUS', 'CREDENTIAL', 'ADDRESS', 'FAILED_AUTH'].map((name) => [`HUB_RATE_LIMIT_${name}`, '1000000000']),
    ),
    ...extra,
  };
}

/** Node flags given in an environment variable (FLEET_HUB_NODE_OPTIONS, BENCH_HUB_NODE_OPTIONS), space-separated. */
export function nodeFlags(value: string | undefined): string[] {
  return (value ?? '').split(/\s+/).filter(Boolean);
}

export function tail(file: string, lines = 30): string {
  try {
    return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Polls `url` until it answers `status` (default 200); fails early when the child exits. */
export async function waitReady(
  child: Child,
  url: string,
  timeoutMs: number,
  init: RequestInit = {},
  status = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  void child.exited.then((code) => (exitCode = code));
  let last = '';
  while (Date.now() < deadline) {
    if (exitCode !== undefined)
      throw new Error(
        `${child.name} exited (code ${exitCode}) before answering. Log ${child.log}:\n${tail(child.log)}`,
      );
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (res.status === status) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `${child.name} did not answer ${url} within ${timeoutMs / 1000} s (${last}). Log ${child.log}:\n${tail(child.log)}`,
  );
}

// ---------------------------------------------------------------- memory

/** A field of /proc/<pid>/status in bytes (VmRSS, VmHWM…), 0 when the process is gone. */
export function statusField(pid: number, field: string): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The process and all its descendants (from /proc/<pid>/stat parent links). */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(entry));
      children.set(ppid, list);
    } catch {
      /* exited meanwhile */
    }
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    out.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return out;
}

/**
 * Samples the resident memory of a process tree: the largest sum of VmRSS seen (polled), and the
 * kernel's own high-water mark (VmHWM) of each process, which catches peaks between two polls.
 */
export class RssSampler {
  peakSum = 0;
  /** Peak sum since the last window() call. */
  private windowPeak = 0;
  private hwm = new Map<number, number>();
  private tree: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private treeAge = 0;

  constructor(private root: number) {}

  start(intervalMs = 200) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    return this;
  }

  sample() {
    if (this.treeAge-- <= 0) {
      this.tree = processTree(this.root);
      this.treeAge = 10;
    }
    let sum = 0;
    for (const pid of this.tree) {
      sum += statusField(pid, 'VmRSS');
      const hwm = statusField(pid, 'VmHWM');
      if (hwm > (this.hwm.get(pid) ?? 0)) this.hwm.set(pid, hwm);
    }
    if (sum > this.peakSum) this.peakSum = sum;
    if (sum > this.windowPeak) this.windowPeak = sum;
  }

  /** The peak summed RSS since the previous call (e.g. during one scenario), then starts a new window. */
  window(): number {
    this.sample();
    const peak = this.windowPeak;
    this.windowPeak = 0;
    return peak;
  }

  /** Largest single-process high-water mark. */
  get peakProcessHwm() {
    return Math.max(0, ...this.hwm.values());
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    return {
      peakRssBytes: Math.max(this.peakSum, this.peakProcessHwm),
      peakSumRssBytes: this.peakSum,
      peakProcessHwmBytes: this.peakProcessHwm,
    };
  }
}

/**
 * CPU time a process has used so far, in microseconds, from /proc/<pid>/stat (clock ticks of 10 ms): over a run of
 * thousands of requests, the server's own CPU per request, whatever else the machine runs. User time is the
 * process's own code; system time is the kernel's work on its behalf (socket reads and writes, epoll).
 */
export function cpuTimes(pid: number): { userUs: number; systemUs: number } {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { userUs: Number(fields[11]) * 10_000, systemUs: Number(fields[12]) * 10_000 }; // utime, stime (fields 14, 15)
  } catch {
    return { userUs: NaN, systemUs: NaN };
  }
}

/** A server the bench started: its process, its address, its memory sampler (the Hub's). */
export interface Server {
  child: Child;
  base: string;
  rss?: RssSampler;
}

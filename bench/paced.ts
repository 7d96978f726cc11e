/**
 * The keyed 304 at the fleet's pace (issue 36): the fleet simulation's idle phase sends each Hub process about 83
 * polls a second over many keep-alive connections, so every request wakes the process on its own; the edge scenarios
 * saturate it, and there a wake-up serves many requests. Here the edge scenario's own requests go at that pace to the
 * Hub and to the same-work server in turn, and the CPU each spends per request is read from /proc. It says what a
 * careful plain server pays per poll at that pace, beside the fleet's per-poll figure (bench/fleet.ts).
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { runLoad, type RequestSpec } from './load';
import { cpuTimes, type Server } from './processes';
import type { PacedResult } from './report-types';

/** One Hub's share of 10,000 instances polling every 60 s through two Hub processes. */
export const FLEET_PACE = { rate: 83, connections: 96 };

/**
 * BENCH_PACED_TRACE=<dir> (investigation, issue 36): the measured run also writes, per server, its CPU by thread
 * (/proc/<pid>/task) and, from a second 5 s run under strace, its syscalls (`strace -c -f`, or BENCH_PACED_STRACE's
 * options, e.g. "-f -tt -e trace=epoll_pwait,futex,write" to see each wake-up and its timer) into <dir>.
 * BENCH_PACED_SEC overrides the measured run's length.
 */
const TRACE_DIR = process.env.BENCH_PACED_TRACE;

function threadTimes(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(`${tid} ${name}`, (Number(f[11]) + Number(f[12])) * 10_000);
    } catch {
      // the thread ended
    }
  }
  return out;
}

export async function measurePaced(
  servers: { hub: Server; sameWork: Server },
  requests: RequestSpec[],
  durationSec: number,
  log: (message: string) => void,
): Promise<PacedResult> {
  const seconds = Number(process.env.BENCH_PACED_SEC ?? durationSec);
  const one = async (server: Server) => {
    const pid = server.child.proc.pid!;
    // The process's CPU with no request at all (its timers alone), for comparison: 3 s after a settle.
    await new Promise((r) => setTimeout(r, 500));
    const q0 = cpuTimes(pid);
    await new Promise((r) => setTimeout(r, 3_000));
    const q1 = cpuTimes(pid);
    const quietMsPerSec = (q1.userUs - q0.userUs + (q1.systemUs - q0.systemUs)) / 3_000;
    // A short warm-up at the pace opens the connections; then a settle so no earlier work is counted.
    const pace = { connections: FLEET_PACE.connections, overallRate: FLEET_PACE.rate, requests, expect: [304] };
    await runLoad({ base: server.base, ...pace, durationSec: 2 });
    await new Promise((r) => setTimeout(r, 500));
    const name = server === servers.hub ? 'hub' : 'same-work';
    const threadsBefore = TRACE_DIR ? threadTimes(pid) : undefined;
    const before = cpuTimes(pid);
    const r = await runLoad({
      base: server.base,
      ...pace,
      durationSec: seconds,
    });
    const after = cpuTimes(pid);
    if (TRACE_DIR && threadsBefore) {
      const lines = [...threadTimes(pid)].map(
        ([t, us]) => `${t}\t${((us - (threadsBefore.get(t) ?? 0)) / r.requests).toFixed(1)} µs/req`,
      );
      fs.writeFileSync(`${TRACE_DIR}/${name}-threads.txt`, `${r.requests} requests\n${lines.join('\n')}\n`);
      // A second run under strace: its syscall counts (strace slows the process; its CPU is not the one reported).
      const strace = spawn('strace', [
        ...(process.env.BENCH_PACED_STRACE ?? '-c -f').split(' '),
        '-p',
        String(pid),
        '-o',
        `${TRACE_DIR}/${name}-strace.txt`,
      ]);
      await new Promise((res) => setTimeout(res, 300));
      const t = await runLoad({ base: server.base, ...pace, durationSec: 5 });
      strace.kill('SIGINT');
      await new Promise((res) => strace.once('exit', res));
      fs.appendFileSync(`${TRACE_DIR}/${name}-strace.txt`, `${t.requests} requests under strace\n`);
    }
    const used = after.userUs - before.userUs + (after.systemUs - before.systemUs);
    log(
      `${server === servers.hub ? 'Hub' : 'same-work server'} with no request: ${quietMsPerSec.toFixed(2)} ms of CPU a second`,
    );
    return { requests: r.requests, cpuUs: r.requests ? used / r.requests : NaN, p50: r.p50, p99: r.p99 };
  };
  const hub = await one(servers.hub);
  const sameWork = await one(servers.sameWork);
  log(
    `keyed 304 at ${FLEET_PACE.rate}/s over ${FLEET_PACE.connections} connections: CPU per request Hub ` +
      `${hub.cpuUs.toFixed(0)} µs, same-work server ${sameWork.cpuUs.toFixed(0)} µs`,
  );
  return { rate: FLEET_PACE.rate, connections: FLEET_PACE.connections, durationSec: seconds, hub, sameWork };
}

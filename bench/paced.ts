/**
 * The keyed 304 at the fleet's pace (issue 36): the fleet simulation's idle phase sends each Hub process about 83
 * polls a second over many keep-alive connections, so every request wakes the process on its own; the edge scenarios
 * saturate it, and there a wake-up serves many requests. Here the edge scenario's own requests go at that pace to the
 * Hub and to the same-work server in turn, and the CPU each spends per request is read from /proc. It says what a
 * careful plain server pays per poll at that pace, beside the fleet's per-poll figure (bench/fleet.ts).
 */
import { runLoad, type RequestSpec } from './load';
import { cpuTimes, type Server } from './processes';
import type { PacedResult } from './report-types';

/** One Hub's share of 10,000 instances polling every 60 s through two Hub processes. */
export const FLEET_PACE = { rate: 83, connections: 96 };

export async function measurePaced(
  servers: { hub: Server; sameWork: Server },
  requests: RequestSpec[],
  durationSec: number,
  log: (message: string) => void,
): Promise<PacedResult> {
  const one = async (server: Server) => {
    const pid = server.child.proc.pid!;
    // A short warm-up at the pace opens the connections; then a settle so no earlier work is counted.
    const pace = { connections: FLEET_PACE.connections, overallRate: FLEET_PACE.rate, requests, expect: [304] };
    await runLoad({ base: server.base, ...pace, durationSec: 2 });
    await new Promise((r) => setTimeout(r, 500));
    const before = cpuTimes(pid);
    const r = await runLoad({ base: server.base, ...pace, durationSec });
    const after = cpuTimes(pid);
    const used = after.userUs - before.userUs + (after.systemUs - before.systemUs);
    return { requests: r.requests, cpuUs: r.requests ? used / r.requests : NaN, p50: r.p50, p99: r.p99 };
  };
  const hub = await one(servers.hub);
  const sameWork = await one(servers.sameWork);
  log(
    `keyed 304 at ${FLEET_PACE.rate}/s over ${FLEET_PACE.connections} connections: CPU per request Hub ` +
      `${hub.cpuUs.toFixed(0)} µs, same-work server ${sameWork.cpuUs.toFixed(0)} µs`,
  );
  return { rate: FLEET_PACE.rate, connections: FLEET_PACE.connections, durationSec, hub, sameWork };
}

/**
 * Variants of the production server side by side (issue 36): the CPU each spends per request, measured in
 * alternating windows on the same machine, so that a change to how the Hub runs can be judged before a full bench.
 *
 *   npx tsx bench/variants.ts [--anonymous | --mcp] [--rounds 8] [--seconds 2] [variant ...]
 *
 * Variants: `shipped` (the server as `npm start` runs it), `no-next` (the same bundles with Next.js replaced by a stub
 * that answers 404: what the REST edge costs with no Next.js in the process at all), `same-work` (the bench's
 * same-work server, bench/same-work-server.mjs, answering the first variant's answers: the targets' measure), or
 * `name=--flag,--flag` (the shipped server with extra Node flags, e.g. `semi32=--max-semi-space-size=32`). Default:
 * `shipped no-next`.
 *
 * Every variant runs at once on its own port against one database seeded here (1,000 templates, its own name, dropped
 * at the end). Each round loads each variant in turn (the order reversed every other round) with 32 connections for
 * the window's seconds, and reads the process's CPU from /proc around it: the keyed updates poll with
 * If-None-Match (20 instance keys in turn), with --anonymous the anonymous list with If-None-Match, or with --mcp a
 * tools/call through /mcp with a personal access token to the bench's MCP upstream (bench/mcp-upstream.mjs, one
 * session), whose own CPU is not counted. CPU per request
 * is steadier than throughput on a shared machine (docs/performance.md, "Next.js in the process, measured by CPU per
 * request"). The medians, each process's peak RSS and every round go to stdout; progress to stderr.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import postgres from 'postgres';
import { serveCommand } from '../scripts/serve-command.mjs';
import { closeDatabase, getDatabase } from '../server/db/client';
import { reloadConfig } from '../server/config';
import { makeInstanceKeys, makeMcpSetup } from './credentials';
import { writeSameWorkManifest } from './edge';
import { median, runLoad, type LoadOptions, type RequestSpec } from './load';
import { mcpCall, openMcpSession } from './mcp';
import {
  benchServerEnv,
  cpuTimes,
  freePort,
  killAllNow,
  startChild,
  statusField,
  waitReady,
  type Child,
} from './processes';
import { seedAccountsAndCategories, seedTemplates } from './seed';

const root = path.resolve(import.meta.dirname, '..');
const log = (message: string) => process.stderr.write(`[variants] ${message}\n`);

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    anonymous: { type: 'boolean', default: false },
    mcp: { type: 'boolean', default: false },
    rounds: { type: 'string', default: '8' },
    seconds: { type: 'string', default: '2' },
  },
});
const rounds = Number(values.rounds);
const seconds = Number(values.seconds);
if (!(Number.isInteger(rounds) && rounds > 0 && seconds > 0)) {
  process.stderr.write('--rounds must be a whole number above 0 and --seconds a number above 0\n');
  process.exit(2);
}
if (values.anonymous && values.mcp) {
  process.stderr.write('--anonymous and --mcp measure different requests: give one of them\n');
  process.exit(2);
}

/** A variant: the Node flags it adds in front of the shipped server's (none for the same-work server). */
function variant(spec: string): { name: string; flags: string[] } {
  if (spec === 'shipped' || spec === 'same-work') return { name: spec, flags: [] };
  if (spec === 'no-next') return { name: spec, flags: ['--import', path.join(root, 'bench/variants/no-next.mjs')] };
  // The first '=' ends the name: the flags may hold their own (--max-semi-space-size=32).
  const at = spec.indexOf('=');
  const [name, flags] = at > 0 ? [spec.slice(0, at), spec.slice(at + 1)] : [];
  if (!name || flags === undefined) {
    process.stderr.write(`unknown variant "${spec}": use shipped, no-next, same-work or name=--flag,--flag\n`);
    process.exit(2);
  }
  return { name, flags: flags.split(',').filter(Boolean) };
}
const variants = (positionals.length ? positionals : ['shipped', 'no-next']).map(variant);
if (values.mcp && variants.some((v) => v.name === 'same-work')) {
  process.stderr.write('same-work is the REST same-work server: the bench compares /mcp with its proxy (--only mcp)\n');
  process.exit(2);
}
if (variants[0]?.name === 'same-work') {
  process.stderr.write("same-work serves the first server's answers: name a Hub variant before it\n");
  process.exit(2);
}

const dbName = `hub_variants_${process.pid}`;
const serverUrl = process.env.BENCH_DATABASE_SERVER_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const admin = postgres(serverUrl, { max: 1 });
const dbUrl = new URL(serverUrl);
dbUrl.pathname = `/${dbName}`;
const children: Child[] = [];
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hub-variants-'));
process.on('exit', killAllNow);

async function main() {
  await admin.unsafe(`create database ${dbName}`);
  process.env.DATABASE_URL = dbUrl.toString();
  process.env.HUB_SECRET = 'hub-bench-master-secret';
  process.env.HUB_URL = 'http://127.0.0.1:1';
  reloadConfig();
  await getDatabase(); // migrations
  const pg = postgres(dbUrl.toString(), { max: 2, onnotice: () => {} });
  const orgs = await seedAccountsAndCategories(pg);
  await seedTemplates(pg, orgs, 1, 1_000);
  const instanceKeys = await makeInstanceKeys(orgs.slice(0, 1), 20);
  const keys = instanceKeys.map((k) => k.secret);
  let load: Pick<LoadOptions, 'requests' | 'next'> | undefined;
  if (values.mcp) {
    // The bench's MCP upstream, registered as the first key's instance; the Hub's assertions name HUB_URL as issuer.
    const upstreamPort = await freePort();
    const mcpUrl = `http://127.0.0.1:${upstreamPort}/mcp`;
    const setup = await makeMcpSetup(pg, root, orgs[0]!, instanceKeys[0]!.id, mcpUrl, 6 * 3600);
    if ('unavailable' in setup) throw new Error(setup.unavailable);
    const upstream = startChild('mcp-upstream', process.execPath, [path.join(root, 'bench/mcp-upstream.mjs')], {
      cwd: root,
      env: {
        ...process.env,
        PORT: String(upstreamPort),
        MCP_JWKS: JSON.stringify(setup.jwks),
        MCP_ISSUER: process.env.HUB_URL,
        MCP_AUDIENCE: setup.instanceKeyId,
      },
      log: path.join(logDir, 'mcp-upstream.log'),
    });
    children.push(upstream);
    await waitReady(upstream, mcpUrl, 30_000, {}, 401);
    const session = await openMcpSession(`http://127.0.0.1:${upstreamPort}`, setup);
    if (!session.headers) throw new Error(`the MCP upstream opened no session (HTTP ${session.status})`);
    load = { next: mcpCall(session.headers)(setup.pat) };
  }
  await pg.end();
  await closeDatabase();

  const since = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
  const target = values.anonymous ? '/api/v1/catalog/templates' : `/api/v1/catalog/templates/updates?since=${since}`;
  const callers: Record<string, string>[] = values.anonymous
    ? [{}]
    : keys.map((secret) => ({ authorization: `Bearer ${secret}` }));

  const [command, served] = serveCommand(root);
  const env = benchServerEnv(); // DATABASE_URL, HUB_SECRET and HUB_URL set above
  const servers = [];
  for (const v of variants) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    let child: Child;
    if (v.name === 'same-work') {
      // The bench's same-work server (bench/same-work-server.mjs), answering the first Hub variant's answers.
      const answers = path.join(logDir, 'same-work-answers.json');
      const wanted = { target, org: values.anonymous ? null : orgs[0]!.id, ...callers[0] };
      await writeSameWorkManifest(servers[0]!.base, [wanted], answers);
      const sameWorkEnv = { SAMEWORK_ANSWERS: answers, SAMEWORK_LOG: path.join(logDir, 'same-work-access.log') };
      child = startChild(v.name, process.execPath, [...v.flags, path.join(root, 'bench/same-work-server.mjs')], {
        cwd: root,
        env: { ...env, ...sameWorkEnv, PORT: String(port) },
        log: path.join(logDir, `${v.name}.log`),
      });
    } else
      child = startChild(v.name, command, [...v.flags, ...served], {
        cwd: root,
        env: { ...env, PORT: String(port) },
        log: path.join(logDir, `${v.name}.log`),
      });
    children.push(child);
    await waitReady(child, `${base}${target}`, 120_000, { headers: callers[0] });
    servers.push({ ...v, base, pid: child.proc.pid!, cpu: [] as number[], rps: [] as number[] });
  }

  const requestsOf = async (base: string): Promise<RequestSpec[]> => {
    const res = await fetch(`${base}${target}`, { headers: callers[0] });
    await res.arrayBuffer();
    const etag = res.headers.get('etag');
    if (!etag) throw new Error(`${base}${target} answered ${res.status} without an ETag`);
    return callers.map((headers) => ({ path: target, headers: { ...headers, 'if-none-match': etag } }));
  };
  const expect = values.mcp ? [200] : [304];
  const loads = new Map<string, Pick<LoadOptions, 'requests' | 'next'>>();
  for (const s of servers) {
    loads.set(s.name, load ?? { requests: await requestsOf(s.base) });
    // Warm-up: the JIT settles before the first measured window.
    await runLoad({ base: s.base, connections: 32, durationSec: 2, expect, ...loads.get(s.name)! });
  }
  for (let round = 0; round < rounds; round++) {
    for (const s of round % 2 ? [...servers].reverse() : servers) {
      const before = cpuTimes(s.pid);
      const run = await runLoad({ base: s.base, connections: 32, durationSec: seconds, expect, ...loads.get(s.name)! });
      const after = cpuTimes(s.pid);
      if (run.unexpected > 0) throw new Error(`${s.name} answered ${JSON.stringify(run.statuses)}`);
      s.cpu.push((after.userUs + after.systemUs - before.userUs - before.systemUs) / run.requests);
      s.rps.push(run.rps);
    }
    log(`round ${round + 1} of ${rounds}`);
  }
  const what = values.mcp ? '/mcp tools/call' : values.anonymous ? 'anonymous list, 304' : 'keyed updates poll, 304';
  // The process's own high-water mark (its threads included): what one more thread or module costs in memory.
  const peakMb = (pid: number) => statusField(pid, 'VmHWM') / 2 ** 20;
  console.log(`| ${what} | CPU µs per request (median) | req/s (median) | peak RSS | CPU µs per request, each round |`);
  console.log('|---|---:|---:|---:|---|');
  for (const s of servers)
    console.log(
      `| ${s.name} | ${median(s.cpu).toFixed(1)} | ${median(s.rps).toFixed(0)} | ${peakMb(s.pid).toFixed(0)} MB | ` +
        `${s.cpu.map((c) => c.toFixed(1)).join(', ')} |`,
    );
}

main()
  .catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)} (logs: ${logDir})\n`);
    process.exitCode = 1;
  })
  .finally(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await admin.unsafe(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.end();
  });

/**
 * The HTTP server and its graceful shutdown: stop accepting, let requests in flight finish (bounded),
 * then flush the audit and close the database.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { buildApp } from '../api/app';
import type { CoreContext } from '../context';

export interface RunningServer {
  url: string;
  port: number;
  close(): Promise<void>;
}

const DRAIN_MS = 10_000;

export async function startServer(core: CoreContext, opts: { port: number; host: string }): Promise<RunningServer> {
  const app = buildApp(core);
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: opts.port, hostname: opts.host }, () => resolve(s));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  core.catalogSync.start(); // registration with the Hub and the catalog sync loop (idle when no Hub is configured)
  core.reconciler.start(); // the deployments' containers (idle with CORE_RUNTIME=none); stopped by core.close()
  const host = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    port,
    close() {
      closing ??= (async () => {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(() => {
            if ('closeAllConnections' in server) server.closeAllConnections();
            resolve();
          }, DRAIN_MS);
          server.close(() => {
            clearTimeout(timer);
            resolve();
          });
          if ('closeIdleConnections' in server) server.closeIdleConnections();
        });
        await core.close();
      })();
      return closing;
    },
  };
}

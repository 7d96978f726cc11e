/** What server/http/serve.ts gets for `next` in the next-worker variant: Next.js in a worker thread, pages proxied. */
import http from 'node:http';
import { Worker } from 'node:worker_threads';

const agent = new http.Agent({ keepAlive: true });
/** Hop-by-hop headers of the worker's answer: this connection's own, not the client's. */
const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding']);

export default function next() {
  // On the embedded database a second thread must not open the data folder: its lock takes this process's own pid
  // for a stale holder (docs/notes.md).
  if (!process.env.DATABASE_URL) throw new Error('the next-worker variant runs on PostgreSQL only (set DATABASE_URL)');
  let port;
  const ready = new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./next-in-worker.mjs', import.meta.url));
    worker.once('message', (message) => resolve((port = message.port)));
    worker.once('error', reject);
    worker.unref();
  });
  return {
    prepare: () => ready,
    getRequestHandler: () => (req, res) => {
      const options = { agent, host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers };
      const upstream = http.request(options, (answer) => {
        const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP.has(name)));
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(res);
      });
      upstream.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      res.once('close', () => upstream.destroy());
      req.pipe(upstream);
    },
  };
}

/** The next-worker variant's worker thread: Next.js prepared on the project, listening on a loopback port. */
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { parentPort } from 'node:worker_threads';

const dir = path.resolve(import.meta.dirname, '../..');
const next = createRequire(path.join(dir, 'package.json'))('next');
const app = next({ dev: false, dir, hostname: '127.0.0.1', port: 0 });
const handle = app.getRequestHandler();
await app.prepare();
const server = http.createServer((req, res) => void handle(req, res));
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));

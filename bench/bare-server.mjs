/**
 * The bench's bare server: the physical limit of a node:http server on this machine, the ceiling the Hub's
 * transport edge is measured against. Everything is computed once at start: the body Buffer and both answers'
 * headers as flat arrays (Node's cheapest writeHead form: no object walk, no name validation per request).
 * Per request it does only what node:http itself must (parse, one write): a request with If-None-Match gets
 * 304 with the ETag, any other 200 with the body, its Content-Type and Content-Length. No routing, no
 * credential, no cache look-up, no Date header. Environment: PORT, BARE_BODY_FILE (the Hub's identity answer,
 * written by the bench), BARE_ETAG.
 */
import fs from 'node:fs';
import http from 'node:http';

const body = fs.readFileSync(process.env.BARE_BODY_FILE);
const etag = process.env.BARE_ETAG ?? '"bare"';
const ok = ['content-type', 'application/json', 'content-length', String(body.byteLength), 'etag', etag];
const notModified = ['etag', etag];

const server = http.createServer((req, res) => {
  res.sendDate = false;
  if (req.headers['if-none-match'] !== undefined) {
    res.writeHead(304, notModified).end();
    return;
  }
  res.writeHead(200, ok).end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 3998), '127.0.0.1', () =>
  console.log(`[bare] listening on ${process.env.PORT}`),
);

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));

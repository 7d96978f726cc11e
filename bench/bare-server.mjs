/**
 * The bench's bare server: node:http answering every request with the same precomputed bytes, as fast as
 * Node can. It is the ceiling the Hub's transport edge is measured against (issue 12's targets): a request
 * with If-None-Match gets 304 with the ETag, any other gets 200 with the body, its Content-Type and
 * Content-Length. No routing, no credential, no cache look-up. Environment: PORT, BARE_BODY_FILE (the
 * Hub's identity answer, written by the bench), BARE_ETAG.
 */
import fs from 'node:fs';
import http from 'node:http';

const body = fs.readFileSync(process.env.BARE_BODY_FILE);
const etag = process.env.BARE_ETAG ?? '"bare"';
const ok = { 'content-type': 'application/json', 'content-length': String(body.byteLength), etag };

const server = http.createServer((req, res) => {
  if (req.headers['if-none-match'] !== undefined) {
    res.writeHead(304, { etag });
    res.end();
    return;
  }
  res.writeHead(200, ok);
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 3998), '127.0.0.1', () => console.log(`[bare] listening on ${process.env.PORT}`));

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.close(() => process.exit(0)));

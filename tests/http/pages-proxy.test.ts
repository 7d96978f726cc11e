/**
 * The edge's hand-over to the pages thread (server/http/pages.ts proxyTo), over a real Unix socket: a plain
 * node:http server stands in for Next.js on the other side. What must hold: the request arrives whole (method,
 * path, body, end-to-end headers), the answer streams back with the edge's own headers kept, hop-by-hop headers
 * stay on their connection, the caller the pages thread noted reaches the edge's request context and never the
 * client, and a thread that does not answer is a 502 in the one error model.
 */
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withRequestContext, type RequestContext } from '../../server/log';
import { proxyTo } from '../../server/http/pages';
import { CALLER_HEADER } from '../../server/http/pagesProtocol';

let dir: string;
let pagesServer: http.Server;
let edge: http.Server;
let base: string;
/** What the stand-in for Next.js last received. */
let received: { method?: string; url?: string; headers: http.IncomingHttpHeaders; body: string };
/** The edge's context of the last request, as the access line would read it. */
let lastContext: RequestContext | undefined;

function listen(server: http.Server, where: string | number) {
  return new Promise<void>((resolve) => server.listen(where, resolve));
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pages-proxy-'));
  const socketPath = path.join(dir, 'next.sock');
  pagesServer = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      received = { method: req.method, url: req.url, headers: req.headers, body };
      if (req.url === '/streamed') {
        res.writeHead(200, {
          'content-type': 'text/plain',
          [CALLER_HEADER]: JSON.stringify({ kind: 'user', id: 'u-1' }),
        });
        res.write('first ');
        setTimeout(() => res.end('second'), 20);
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json', 'keep-alive': 'timeout=1', 'x-from-pages': 'yes' });
      res.end(JSON.stringify({ ok: true }));
    });
  });
  await listen(pagesServer, socketPath);
  const handle = proxyTo(socketPath);
  const down = proxyTo(path.join(dir, 'nobody.sock'));
  edge = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const context: RequestContext = { requestId: 'edge-request-0001' };
    lastContext = context;
    res.setHeader('x-request-id', context.requestId);
    withRequestContext(context, () => (req.url === '/down' ? down(req, res) : handle(req, res)));
  });
  await listen(edge, 0);
  base = `http://127.0.0.1:${(edge.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => edge.close(resolve));
  await new Promise((resolve) => pagesServer.close(resolve));
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the hand-over to the pages thread', () => {
  it('passes the request on whole, and keeps the edge’s headers beside the answer’s', async () => {
    // node:http, not fetch: fetch refuses to send a Keep-Alive header of its own.
    const answer = await new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }>(
      (resolve, reject) => {
        const headers = {
          'content-type': 'application/json',
          'x-forwarded-for': '203.0.113.9',
          'keep-alive': 'timeout=5',
        };
        const request = http.request(`${base}/api/trpc/x?input=1`, { method: 'POST', headers }, (res) => {
          let body = '';
          res.on('data', (chunk: Buffer) => (body += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
        });
        request.on('error', reject);
        request.end(JSON.stringify({ hello: 'pages' }));
      },
    );
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body)).toEqual({ ok: true });
    expect(answer.headers['x-request-id']).toBe('edge-request-0001');
    expect(answer.headers['x-from-pages']).toBe('yes');
    // The pages server's keep-alive is about the socket between the threads, not the client's connection.
    expect(answer.headers['keep-alive']).not.toBe('timeout=1');
    expect(received).toMatchObject({ method: 'POST', url: '/api/trpc/x?input=1', body: '{"hello":"pages"}' });
    expect(received.headers['x-forwarded-for']).toBe('203.0.113.9');
    expect(received.headers['keep-alive']).toBeUndefined();
    expect(lastContext?.caller).toBeUndefined();
  });

  it('streams the answer as it comes, and takes the caller header off into the edge’s request context', async () => {
    const answer = await fetch(`${base}/streamed`);
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe('first second');
    expect(answer.headers.has(CALLER_HEADER)).toBe(false);
    expect(lastContext?.caller).toEqual({ kind: 'user', id: 'u-1' });
  });

  it('answers 502 in the error model, with the request id, when the pages thread does not answer', async () => {
    const answer = await fetch(`${base}/down`);
    expect(answer.status).toBe(502);
    expect(answer.headers.get('content-type')).toContain('application/json');
    expect(await answer.json()).toMatchObject({ code: 'BAD_GATEWAY', request_id: 'edge-request-0001' });
  });
});

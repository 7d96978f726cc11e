/**
 * The edge scenarios: the Hub's cached answers against the bare server (the physical limit) and the same-work
 * server (issue 36: the spec's work done once). What the same-work server (bench/same-work-server.mjs) serves is
 * fetched from the Hub once, at start: for each answer the bench measures, its body bytes (identity and br, as
 * sent), its ETag and its headers without the ones computed per request.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { InstanceKeyCred } from './credentials';
import type { RequestSpec } from './load';
import { bearer, type Ctx, type ScenarioDef } from './scenarios';

/** Headers every answer computes per request (or per body): the same-work server writes its own. */
const PER_REQUEST = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'content-encoding',
  'etag',
  'x-request-id',
  'ratelimit',
  'ratelimit-policy',
  'server-timing',
]);

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

/** One GET as sent on the wire (no decompression, unlike fetch). */
function rawGet(base: string, target: string, headers: Record<string, string>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${base}${target}`, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
}

const fixedHeaders = (headers: http.IncomingHttpHeaders) =>
  Object.fromEntries(
    Object.entries(headers).filter(([name, value]) => !PER_REQUEST.has(name) && typeof value === 'string'),
  ) as Record<string, string>;

export interface SameWorkAnswer {
  /** The request target (path and query) as the load generator sends it. */
  target: string;
  /** The caller's organization (null: anonymous); its credential is `authorization`. */
  org: string | null;
  authorization?: string;
}

/**
 * Fetches the Hub's answers (identity, br, and the 304's headers) and writes the same-work server's manifest
 * (see bench/same-work-server.mjs). Fails when the Hub gives one of them no ETag: there would be nothing to compare.
 */
export async function writeSameWorkManifest(hubBase: string, wanted: SameWorkAnswer[], file: string): Promise<void> {
  const answers = [];
  for (const w of wanted) {
    const auth: Record<string, string> = w.authorization ? { authorization: w.authorization } : {};
    const identity = await rawGet(hubBase, w.target, { ...auth, 'accept-encoding': 'identity' });
    const etag = identity.headers.etag;
    if (identity.status !== 200 || !etag)
      throw new Error(`same-work server: the Hub answered ${w.target} with ${identity.status}, ETag ${etag ?? 'none'}`);
    const br = await rawGet(hubBase, w.target, { ...auth, 'accept-encoding': 'br' });
    const notModified = await rawGet(hubBase, w.target, { ...auth, 'if-none-match': etag });
    answers.push({
      target: w.target,
      org: w.org,
      etag,
      headers: fixedHeaders(identity.headers),
      headers304: fixedHeaders(notModified.headers),
      identity: identity.body.toString('base64'),
      ...(br.headers['content-encoding'] === 'br' && { br: br.body.toString('base64'), brEtag: br.headers.etag }),
    });
  }
  fs.writeFileSync(file, JSON.stringify({ answers }));
}

/**
 * The transport edge (issues 12 and 23): the Hub's cached answers against the bare node:http server serving the
 * same precomputed bytes (bench/bare-server.mjs, the physical limit). One organization's keys (acme), so that
 * every request hits the same cache entries. Each connection cycles through a fixed list of requests (one per
 * key), built once by autocannon: no JavaScript of the load generator per request on either side.
 */
export function edgeScenarios(ctx: Ctx, acmeKeys: InstanceKeyCred[]): ScenarioDef[] {
  const listPath = '/api/v1/catalog/templates';
  const updatesPath = `/api/v1/catalog/templates/updates?since=${encodeURIComponent(ctx.since)}`;
  const acmeEtag = () => ctx.etags.get(acmeKeys[0]!.orgId) ?? '';
  const bareNote = 'against the bare node:http server answering the same precomputed bytes';
  const perKey = (headers: (secret: string) => Record<string, string>, p: string) =>
    acmeKeys.map((k) => ({ path: p, headers: headers(k.secret) }));
  const def = (
    d: Omit<ScenarioDef, 'hub' | 'baseline' | 'againstBare'> & {
      fixedHub: () => RequestSpec[];
      fixedBare: RequestSpec;
    },
  ): ScenarioDef => {
    const fixed = { hub: [] as RequestSpec[], baseline: [d.fixedBare] };
    const { fixedHub, fixedBare, prepare, ...rest } = d;
    return {
      ...rest,
      hub: () => fixed.hub[0] ?? fixedBare,
      baseline: () => fixedBare,
      againstBare: true,
      fixed,
      // The lists are built once the ETags are known (they are read after the Hub started).
      prepare: async () => {
        const notApplicable = await prepare?.();
        fixed.hub = fixedHub();
        return notApplicable;
      },
    };
  };
  let anonymousEtag = '';
  return [
    def({
      id: 'edge-304',
      title: 'Edge: updates poll, 304',
      request: `GET ${updatesPath} (svh_, If-None-Match)`,
      prepare: async () => {
        const res = await fetch(`${ctx.hubBase}${updatesPath}`, { headers: bearer(acmeKeys[0]!.secret) });
        await res.arrayBuffer();
        const etag = res.headers.get('etag');
        if (!etag) return `the Hub sends no ETag on the updates answer (HTTP ${res.status})`;
        ctx.etags.set(acmeKeys[0]!.orgId, etag);
      },
      fixedHub: () => perKey((secret) => ({ ...bearer(secret), 'if-none-match': acmeEtag() }), updatesPath),
      fixedBare: { path: updatesPath, headers: { 'if-none-match': '"x"' } },
      expectHub: [304],
      note: bareNote,
    }),
    def({
      id: 'edge-304-anon',
      title: 'Edge: anonymous list, 304',
      request: `GET ${listPath} (anonymous, If-None-Match)`,
      prepare: async () => {
        const res = await fetch(`${ctx.hubBase}${listPath}`);
        await res.arrayBuffer();
        anonymousEtag = res.headers.get('etag') ?? '';
        return anonymousEtag ? undefined : 'the anonymous list has no ETag';
      },
      fixedHub: () => [{ path: listPath, headers: { 'if-none-match': anonymousEtag } }],
      fixedBare: { path: listPath, headers: { 'if-none-match': '"x"' } },
      expectHub: [304],
      note: bareNote,
    }),
    def({
      id: 'edge-list',
      title: 'Edge: cached list page, identity',
      request: `GET ${listPath} (svh_, 50 templates, no Accept-Encoding)`,
      fixedHub: () => perKey(bearer, listPath),
      fixedBare: { path: listPath },
      expectHub: [200],
      note: bareNote,
    }),
    def({
      id: 'edge-list-compressed',
      title: 'Edge: cached list page, gzip/br',
      request: `GET ${listPath} (svh_, 50 templates, Accept-Encoding: gzip, br)`,
      fixedHub: () => perKey((secret) => ({ ...bearer(secret), 'accept-encoding': 'gzip, br' }), listPath),
      fixedBare: { path: listPath },
      expectHub: [200],
      note: `${bareNote} (identity)`,
    }),
  ];
}

/** Body bytes of one answer as sent (Content-Length), for an Accept-Encoding (fetch sends "gzip, deflate" unless told). */
export async function wireBytes(
  base: string,
  p: string,
  headers: Record<string, string>,
): Promise<{ bytes: number; encoding: string }> {
  const res = await fetch(base + p, { headers });
  await res.arrayBuffer();
  return {
    bytes: Number(res.headers.get('content-length') ?? NaN),
    encoding: res.headers.get('content-encoding') ?? 'identity',
  };
}

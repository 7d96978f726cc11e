/**
 * The edge scenarios' reference servers beside the Hub (issue 36): what the same-work server
 * (bench/same-work-server.mjs) serves is fetched from the Hub once, at start: for each answer the bench measures,
 * its body bytes (identity and br, as sent), its ETag and its headers without the ones computed per request.
 */
import http from 'node:http';
import fs from 'node:fs';

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
      ...(br.headers['content-encoding'] === 'br' && { br: br.body.toString('base64') }),
    });
  }
  fs.writeFileSync(file, JSON.stringify({ answers }));
}

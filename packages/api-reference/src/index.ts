/**
 * The API reference page of both services: Swagger UI rendering the service's own generated OpenAPI
 * document. Its files come from the swagger-ui-dist package on this machine (no CDN: the page works
 * offline and under a strict Content-Security-Policy), loaded by plain <script>/<link> tags so the page
 * runs no inline script; a service serves `referencePage()` at its reference path and `referenceAsset()`
 * under `<reference path>/assets/<name>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
// The package's own answer to "where are your files" (not its index, which loads the 1.7 MB browser bundle), and a
// plain import that Next.js's bundler leaves to Node (next.config.mjs lists swagger-ui-dist as external): a
// require.resolve() here would be rewritten into a module id.
import swaggerUiFolder from 'swagger-ui-dist/absolute-path.js';

const swaggerDir = swaggerUiFolder();
const swaggerVersion = (
  JSON.parse(fs.readFileSync(path.join(swaggerDir, 'package.json'), 'utf8')) as { version: string }
).version;

/** Starts Swagger UI on the page's #api-reference element with the document named in its data-url. */
const START_SCRIPT = `(() => {
  const root = document.getElementById('api-reference');
  window.ui = SwaggerUIBundle({
    url: root.dataset.url,
    dom_id: '#api-reference',
    deepLinking: true,
    defaultModelsExpandDepth: 0,
    docExpansion: 'list',
  });
})();
`;

const FILES: Record<string, { contentType: string; read: () => Buffer }> = {
  'swagger-ui.css': {
    contentType: 'text/css; charset=utf-8',
    read: () => fs.readFileSync(path.join(swaggerDir, 'swagger-ui.css')),
  },
  'swagger-ui-bundle.js': {
    contentType: 'text/javascript; charset=utf-8',
    read: () => fs.readFileSync(path.join(swaggerDir, 'swagger-ui-bundle.js')),
  },
  'start.js': { contentType: 'text/javascript; charset=utf-8', read: () => Buffer.from(START_SCRIPT) },
};

export interface ReferenceAsset {
  /** The bytes as loaded (a view, never a copy): a Fetch Response and Hono's c.body() take it as it is. */
  body: Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
}

const loaded = new Map<string, { identity: Uint8Array<ArrayBuffer>; gzip: Uint8Array<ArrayBuffer> }>();
const view = (bytes: Buffer) => new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.byteLength);

/**
 * One of the page's files, gzipped when the client accepts it (the bundle is 1.7 MB, 0.5 MB gzipped);
 * read and compressed once per process. Undefined for any other name. A server that compresses its answers
 * itself (Next.js) passes no Accept-Encoding.
 */
export function referenceAsset(name: string, acceptEncoding: string | null | undefined): ReferenceAsset | undefined {
  const file = Object.hasOwn(FILES, name) ? FILES[name] : undefined;
  if (!file) return undefined;
  let bodies = loaded.get(name);
  if (!bodies) {
    const identity = file.read();
    bodies = { identity: view(identity), gzip: view(gzipSync(identity)) };
    loaded.set(name, bodies);
  }
  const gzip = /\bgzip\b/.test(acceptEncoding ?? '');
  return {
    body: gzip ? bodies.gzip : bodies.identity,
    headers: {
      'content-type': file.contentType,
      // The URLs carry Swagger UI's version (see referencePage), so a new version is a new URL.
      'cache-control': 'public, max-age=604800, immutable',
      vary: 'accept-encoding',
      ...(gzip && { 'content-encoding': 'gzip' }),
    },
  };
}

const escapeAttribute = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export interface ReferencePageOptions {
  /** The page's title, e.g. "Hub API reference". */
  title: string;
  /** Where the OpenAPI document is served (same origin). */
  documentUrl: string;
  /** The path the assets are served under (no trailing slash). */
  assetsPath: string;
  /** The Content-Security-Policy nonce, where the page's policy requires one for scripts. */
  nonce?: string;
  /** Where the page's "back" link goes (the dashboard). */
  homeUrl?: string;
}

/** The HTML page; it runs no inline script. */
export function referencePage({ title, documentUrl, assetsPath, nonce, homeUrl = '/' }: ReferencePageOptions): string {
  const asset = (name: string) => escapeAttribute(`${assetsPath}/${name}?v=${swaggerVersion}`);
  const nonceAttribute = nonce ? ` nonce="${escapeAttribute(nonce)}"` : '';
  const url = escapeAttribute(documentUrl);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeAttribute(title)}</title>
<link rel="stylesheet" href="${asset('swagger-ui.css')}">
</head>
<body>
<main>
<p style="margin:1rem 1.25rem 0;font-family:sans-serif">
<a href="${escapeAttribute(homeUrl)}">Back to the dashboard</a> · <a href="${url}">OpenAPI document (JSON)</a></p>
<noscript><p>The API reference needs JavaScript. The OpenAPI document itself is at <a href="${url}">${url}</a>.</p></noscript>
<div id="api-reference" data-url="${url}"></div>
</main>
<script src="${asset('swagger-ui-bundle.js')}"${nonceAttribute}></script>
<script src="${asset('start.js')}"${nonceAttribute}></script>
</body>
</html>`;
}

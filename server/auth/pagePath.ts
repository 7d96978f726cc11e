/** Request header the proxy (proxy.ts) sets on page requests: the path and query the browser asked for (no imports: the proxy loads it). */
export const PAGE_PATH_HEADER = 'x-hub-page-path';

/** The Hub's API reference: Swagger UI (@shared/api-reference) rendering the generated OpenAPI document. */
import { referencePage } from '@shared/api-reference';
import { REST_PREFIX } from '@/server/api/rest';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export function GET(request: Request) {
  const html = referencePage({
    title: 'Hub API reference',
    documentUrl: `${REST_PREFIX}/openapi.json`,
    assetsPath: '/docs/api/assets',
    // The page policy (proxy.ts) runs scripts only with this request's nonce.
    nonce: request.headers.get('x-nonce') ?? undefined,
  });
  return new Response(html, { headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' } });
}

import { publicJwks } from '@/server/api/pageData';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export async function GET() {
  return Response.json(await publicJwks(), { headers: { 'cache-control': 'public, max-age=300' } });
}

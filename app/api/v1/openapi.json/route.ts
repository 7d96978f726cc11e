import { openApiDocument } from '@/server/api/openapi';

export const runtime = 'nodejs';
export const dynamic = 'force-dynamic';

export function GET() {
  return Response.json(openApiDocument());
}

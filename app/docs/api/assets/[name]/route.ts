/**
 * The files of the API reference page (Swagger UI from node_modules). Uncompressed here: Next.js compresses what
 * its routes answer, and a body already gzipped would be gzipped twice.
 */
import { referenceAsset } from '@shared/api-reference';
import { errorResponse, TransportError } from '@/server/api/errors';

export const runtime = 'nodejs';

export async function GET(_request: Request, { params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  const asset = referenceAsset(name, null);
  if (!asset)
    return errorResponse(new TransportError('NOT_FOUND', `no reference asset ${name}`), 'API reference asset');
  return new Response(asset.body, { headers: asset.headers });
}

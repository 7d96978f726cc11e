/**
 * The files of the API reference page (Swagger UI from node_modules). Uncompressed here: Next.js compresses what
 * its routes answer, and a body already gzipped would be gzipped twice.
 */
import { referenceAsset } from '@shared/api-reference';
import { errorResponse } from '@/server/api/errors';
import { DomainError } from '@/server/domain/errors';

export const runtime = 'nodejs';

export async function GET(_request: Request, { params }: { params: Promise<{ name: string }> }) {
  const { name } = await params;
  const asset = referenceAsset(name, null);
  if (!asset) return errorResponse(new DomainError('not_found', `no reference asset ${name}`), 'API reference asset');
  return new Response(asset.body, { headers: asset.headers });
}

/**
 * HTTP caching of read answers on the REST surface: ETag + Cache-Control on every cached answer, and
 * 304 Not Modified when If-None-Match matches. A procedure calls answerWithEtag(); on a match it throws
 * NotModified, which skips output validation and serialization, and the REST adapter answers 304.
 */
import { TRPCError } from '@trpc/server';
import type { CachedAnswer } from '../domain/catalog/cache';
import type { Principal } from '../domain/principal';
import type { Context } from './trpc';

export class NotModified extends Error {
  constructor() {
    super('Not modified');
    this.name = 'NotModified';
  }
}

export function isNotModified(error: unknown): boolean {
  return error instanceof TRPCError && error.cause instanceof NotModified;
}

function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}

/** Anonymous answers may be stored by shared caches; keyed answers only by the caller. Both revalidate. */
export function cacheControlFor(principal: Principal): string {
  return principal.kind === 'anonymous' ? 'public, max-age=0, must-revalidate' : 'private, max-age=0, must-revalidate';
}

export function answerWithEtag<T>(ctx: Context, answer: CachedAnswer<T>): T {
  ctx.resHeaders.set('etag', answer.etag);
  ctx.resHeaders.set('cache-control', cacheControlFor(ctx.principal));
  ctx.resHeaders.set('vary', 'Authorization');
  if (ctx.conditionalRequests && etagMatches(ctx.headers.get('if-none-match'), answer.etag)) {
    throw new TRPCError({ code: 'BAD_REQUEST', message: 'Not modified', cause: new NotModified() });
  }
  return answer.value;
}

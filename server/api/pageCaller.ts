/** A server-side caller of the tRPC procedures for pages, as the signed-in person (or anonymous). */
import { pageCredential, sessionOf } from '../auth/session';
import { createCaller } from './root';
import { contextFor } from './trpc';

export async function pageCaller() {
  const { principal, expired, headers } = await pageCredential();
  return { caller: createCaller(contextFor(principal, headers)), session: sessionOf(principal, expired) };
}

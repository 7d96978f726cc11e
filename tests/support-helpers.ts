/** Fixtures for the support-surface tests (issue 6): an organization with an instance key, tRPC callers, PATs. */
import { sessionCookieName } from '../server/auth/credentials';
import { getDb } from '../server/db/client';
import { personalAccessTokens } from '../server/db/schema';
import { createCaller } from '../server/api/root';
import { createContext } from '../server/api/trpc';
import { issueSecret } from '@shared/tokens';
import { api, createKey, createOrg, createUser, unique } from './helpers';

/** An organization with an admin, a member and one instance key. */
export async function supportWorld(opts: { slug?: string; keyName?: string } = {}) {
  const admin = await createUser({ name: 'Org Admin' });
  const member = await createUser({ name: 'Org Member' });
  const org = await createOrg({ slug: opts.slug ?? unique('org'), admin, members: [member] });
  const key = await createKey(org.id, opts.keyName ?? 'core-1');
  return { org, admin, member, key };
}

/** A tRPC caller authenticated like the dashboard (bearer JWT through the one resolver). */
export async function trpcAs(token: string | null) {
  const headers = new Headers();
  if (token) headers.set('authorization', `Bearer ${token}`);
  return createCaller(await createContext(headers));
}

/** A tRPC caller as the dashboard's own page calls it: the session cookie, from a page of the Hub's origin. */
export async function sessionCallerAs(sessionToken: string) {
  const headers = new Headers({ cookie: `${sessionCookieName()}=${sessionToken}`, origin: 'http://hub.test' });
  return createCaller(await createContext(headers, { allowSessionCookie: true }));
}

/** A real, well-formed personal access token row bound to the key (REST must still refuse it). */
export async function mintPat(user: { id: string }, orgId: string, keyId: string) {
  const db = await getDb();
  const issued = issueSecret('svp_');
  await db.insert(personalAccessTokens).values({
    name: 'pat',
    tokenHash: issued.hash,
    tokenPrefix: issued.displayPrefix,
    userId: user.id,
    orgId,
    instanceKeyId: keyId,
    membershipSince: new Date(Date.now() - 60_000),
  });
  return issued.secret;
}

/** Revokes an instance key through the account API, as an organization admin would. */
export async function revokeKeyViaApi(adminToken: string, keyId: string) {
  const res = await api('/account/api-keys', { method: 'DELETE', token: adminToken, body: { id: keyId } });
  if (res.status !== 200) throw new Error(`revoke failed: ${res.status} ${JSON.stringify(res.body)}`);
}

/**
 * Runs each refusal case against one REST call: no credential 401, PAT 401, JWT 403, revoked key 401,
 * malformed key 401. Returns the statuses, keyed by case.
 */
export async function refusals(call: (token: string | null) => Promise<{ status: number; body: any }>) {
  const { org, admin, key } = await supportWorld();
  const pat = await mintPat(admin, org.id, key.id);
  const revoked = await createKey(org.id, 'to revoke');
  await revokeKeyViaApi(admin.token, revoked.id);
  const cases: Record<string, string | null> = {
    none: null,
    pat,
    jwt: admin.token,
    revoked: revoked.secret,
    malformed: 'svh_notARealKey',
  };
  const out: Record<string, { status: number; code: string }> = {};
  for (const [name, token] of Object.entries(cases)) {
    const res = await call(token);
    out[name] = { status: res.status, code: res.body?.code };
  }
  return out;
}

export const EXPECTED_REFUSALS = {
  none: { status: 401, code: 'UNAUTHORIZED' },
  pat: { status: 401, code: 'UNAUTHORIZED' },
  jwt: { status: 403, code: 'FORBIDDEN' },
  revoked: { status: 401, code: 'UNAUTHORIZED' },
  malformed: { status: 401, code: 'UNAUTHORIZED' },
};

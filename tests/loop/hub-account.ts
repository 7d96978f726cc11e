/** The Hub side of a loop test, done as its people do it: over the Hub's REST API with their Hub JWTs. */
import { expect } from 'vitest';
import { call } from './processes';

export async function hubOk(hub: string, p: string, token: string, method = 'GET', body?: unknown) {
  const res = await call(hub, `/api/v1${p}`, { method, token, body });
  expect(res.status, `${method} ${p} → ${JSON.stringify(res.body)}`).toBeLessThan(300);
  return res.body;
}

/**
 * An organization with an instance key; `members` join it the way people do (invited by the admin,
 * accepted with their own JWT) and may then mint tokens for the instance.
 */
export async function organizationWithKey(
  hub: string,
  adminJwt: string,
  slug: string,
  members: Array<{ email: string; role: 'admin' | 'member'; jwt: string }> = [],
) {
  const { organization } = await hubOk(hub, '/account/organizations', adminJwt, 'POST', { name: `Org ${slug}`, slug });
  for (const m of members) {
    const { invitation } = await hubOk(hub, '/account/invitations', adminJwt, 'POST', { email: m.email, role: m.role });
    await hubOk(hub, '/account/invitations/accept', m.jwt, 'POST', { id: invitation.id });
  }
  const { apiKey } = await hubOk(hub, '/account/api-keys', adminJwt, 'POST', { name: `core ${slug}` });
  return {
    org: organization as { id: string; slug: string },
    key: apiKey as { id: string; key: string; key_prefix: string },
  };
}

export async function mintPat(hub: string, jwt: string, instanceId: string) {
  const { token } = await hubOk(hub, '/account/tokens', jwt, 'POST', { name: 'assistant', instance_id: instanceId });
  return token as { id: string; token: string };
}

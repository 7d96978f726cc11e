/**
 * A personal access token minted with a script token (a bearer API token) is derived from it (issue 34): it stops
 * at /mcp when that script token is revoked, expires or is signed out everywhere, with its look-up cached before
 * (no stale authority), and its expiry is capped at the script token's. A token minted in a browser session
 * (a Hub JWT without `jti`) is unaffected.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { signUserToken } from '../../server/domain/jwt';
import { issueScriptToken } from '../../server/domain/scriptTokens';
import { api } from '../helpers';
import { mintToken, rawInitialize } from '../mcp-harness';
import { useMcpInstance } from '../fixtures/mcp-instance';

const mcp = useMcpInstance({ admin: { email: 'scripter@example.test' }, keyName: 'core-derived' });
let { hub, admin: person, key } = mcp;
beforeAll(() => void ({ hub, admin: person, key } = mcp));

const scriptToken = (ttlSeconds = 3600) =>
  issueScriptToken({
    userId: person.id,
    source: 'dashboard',
    ttlSeconds,
    actor: { kind: 'system' },
    orgId: null,
  });

async function mcpStatus(pat: string) {
  const res = await rawInitialize(hub.url, `Bearer ${pat}`);
  return { status: res.status, reason: res.body?.reason as string | undefined };
}

async function statusInList(token: string, id: string) {
  const res = await api('/account/tokens', { token });
  return (res.body.tokens as Array<{ id: string; status: string }>).find((t) => t.id === id)?.status;
}

describe('a PAT minted with a script token', () => {
  it('has its expiry capped at the script token’s: a longer one or none is cut to it', async () => {
    const script = await scriptToken();
    const none = await mintToken(script.token, key.id, { name: 'no expiry asked' });
    expect(none.expires_at).toBe(script.expiresAt.toISOString());
    const longer = await mintToken(script.token, key.id, { name: 'a year asked', expires_in_days: 365 });
    expect(longer.expires_at).toBe(script.expiresAt.toISOString());
    // A shorter one is kept: one day is shorter than a 30-day script token.
    const month = await scriptToken(30 * 86_400);
    const day = await mintToken(month.token, key.id, { name: 'a day asked', expires_in_days: 1 });
    expect(Date.parse(day.expires_at!)).toBeLessThan(month.expiresAt.getTime());
  });

  it('stops at once when the script token is revoked, though its look-up was cached', async () => {
    const script = await scriptToken();
    const pat = await mintToken(script.token, key.id);
    expect((await mcpStatus(pat.token)).status).toBe(200);
    expect((await mcpStatus(pat.token)).status).toBe(200); // served from the credential cache
    const revoked = await api(`/account/api-tokens`, {
      method: 'DELETE',
      token: person.token,
      body: { id: script.id },
    });
    expect(revoked.status).toBe(200);
    expect(await mcpStatus(pat.token)).toEqual({ status: 401, reason: 'api_token_ended' });
    expect(await statusInList(person.token, pat.id)).toBe('api_token_ended');
    // The revoked script token mints nothing more.
    const again = await api('/account/tokens', {
      method: 'POST',
      token: script.token,
      body: { name: 'after revocation', instance_id: key.id },
    });
    expect(again.status).toBe(401);
  });

  it('stops when the script token expires', async () => {
    const script = await scriptToken(2);
    const pat = await mintToken(script.token, key.id);
    expect((await mcpStatus(pat.token)).status).toBe(200);
    await new Promise((r) => setTimeout(r, Math.max(0, script.expiresAt.getTime() - Date.now()) + 200));
    const after = await mcpStatus(pat.token);
    expect(after.status).toBe(401);
    expect(['expired', 'api_token_ended']).toContain(after.reason);
  });

  it('stops on sign-out everywhere; a PAT minted in a browser session keeps working', async () => {
    const script = await scriptToken();
    const derived = await mintToken(script.token, key.id, { name: 'derived' });
    const personal = await mintToken(person.token, key.id, { name: 'from the dashboard' });
    expect(personal.expires_at).toBeNull();
    expect((await mcpStatus(derived.token)).status).toBe(200);
    expect((await mcpStatus(personal.token)).status).toBe(200);

    const out = await api('/account/sign-out-everywhere', { method: 'POST', token: person.token, body: {} });
    expect(out.status).toBe(200);
    expect(await mcpStatus(derived.token)).toEqual({ status: 401, reason: 'api_token_ended' });
    expect((await mcpStatus(personal.token)).status).toBe(200);

    // A session issued after the sign-out (JWT times are whole seconds) sees the derived token as ended.
    await new Promise((r) => setTimeout(r, 1_100));
    const fresh = await signUserToken(person.id);
    expect(await statusInList(fresh, derived.id)).toBe('api_token_ended');
    expect(await statusInList(fresh, personal.id)).toBe('active');
  });

  it('a token minted in the dashboard and rotated with a script token is derived from it from then on', async () => {
    const session = await signUserToken(person.id); // a browser session (the one above was signed out)
    const personal = await mintToken(session, key.id, { name: 'dashboard, rotated by a script' });
    expect(personal.expires_at).toBeNull();
    const script = await scriptToken();
    const rotated = await api('/account/tokens', { method: 'PUT', token: script.token, body: { id: personal.id } });
    expect(rotated.status).toBe(200);
    // Its expiry is capped at the script token's, as a minted one's would be.
    expect(rotated.body.token.expires_at).toBe(script.expiresAt.toISOString());
    const secret = rotated.body.token.token as string;
    expect((await mcpStatus(secret)).status).toBe(200);

    const revoked = await api('/account/api-tokens', {
      method: 'DELETE',
      token: session,
      body: { id: script.id },
    });
    expect(revoked.status).toBe(200);
    expect(await mcpStatus(secret)).toEqual({ status: 401, reason: 'api_token_ended' });
    expect(await statusInList(session, personal.id)).toBe('api_token_ended');
  });

  it('a rotation in a browser session keeps a token as it was', async () => {
    const session = await signUserToken(person.id);
    const personal = await mintToken(session, key.id, { name: 'dashboard, rotated in the dashboard' });
    const rotated = await api('/account/tokens', { method: 'PUT', token: session, body: { id: personal.id } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.token.expires_at).toBeNull();
    expect((await mcpStatus(rotated.body.token.token as string)).status).toBe(200);
  });
});

/**
 * The sign-in limits behind a reverse proxy (CORE_TRUSTED_PROXIES) and exposed directly:
 * - per (username, client): one client's failures lock that client only; another client signs in;
 * - without trusted proxies X-Forwarded-For is ignored (a client cannot pick its own bucket);
 * - IPv6 clients are counted by their /64;
 * - many clients against one username: slowed, then a short lock with Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientAddress, limitKey } from '../src/auth/clientAddress';
import { parseAddressList } from '@shared/ops';
import { LOGIN_USERNAME_LOCK_AT, LOGIN_USERNAME_LOCK_SECONDS } from '../src/domain/sessions';
import { ADMIN_PASSWORD, corePerCase, localUser, type TestCore } from './helpers';

const TEMP = { username: 'root', password: 'temporary admin password' };
const cores = corePerCase();

async function core(trusted: string | null) {
  const t = await cores.start({
    temporaryAdmin: TEMP,
    trustedProxies: trusted ? parseAddressList(trusted, 'CORE_TRUSTED_PROXIES') : null,
  });
  const admin = (await t.call('POST', '/api/v1/auth/login', { body: TEMP })).body.access_token as string;
  return { t, admin };
}
const login = (t: TestCore, username: string, password: string, from?: string) =>
  t.call('POST', '/api/v1/auth/login', {
    body: { username, password },
    headers: from ? { 'x-forwarded-for': from } : {},
  });

afterAll(() => cores.stopAll());

describe('client addresses', () => {
  it('groups IPv6 by /64 and reads X-Forwarded-For only through trusted proxies', () => {
    expect(limitKey({ ip: '2001:db8:1:2::1', family: 6 })).toBe('2001:db8:1:2::/64');
    expect(limitKey({ ip: '2001:db8:1:2:ffff:ee:dd:9', family: 6 })).toBe('2001:db8:1:2::/64');
    expect(limitKey({ ip: '2001:db8::9', family: 6 })).toBe('2001:db8:0:0::/64');
    const proxies = parseAddressList('10.0.0.0/8, ::1', 'CORE_TRUSTED_PROXIES');
    expect(clientAddress('10.1.2.3', '198.51.100.9', proxies)).toBe('198.51.100.9');
    expect(clientAddress('10.1.2.3', '6.6.6.6, 198.51.100.9, 10.9.9.9', proxies)).toBe('198.51.100.9');
    expect(clientAddress('203.0.113.5', '198.51.100.9', proxies)).toBe('203.0.113.5'); // the peer is no proxy
    expect(clientAddress('203.0.113.5', '198.51.100.9', null)).toBe('203.0.113.5');
    expect(clientAddress('::ffff:10.1.2.3', '2001:db8:1:2::77', proxies)).toBe('2001:db8:1:2::/64');
    expect(() => parseAddressList('10.0.0.0/33', 'CORE_TRUSTED_PROXIES')).toThrow(
      /CORE_TRUSTED_PROXIES: "10.0.0.0\/33" is not an IP address or CIDR range/,
    );
  });
});

describe('behind a trusted proxy', () => {
  let t: TestCore;
  let admin: string;
  beforeAll(async () => {
    ({ t, admin } = await core('127.0.0.1'));
  });

  it('one client’s failures lock that client for that username; another client signs in', async () => {
    const user = await localUser(t, admin, 'readonly', 'victim@example.test');
    for (let i = 0; i < 5; i++) expect((await login(t, user.email, 'wrong password!', '203.0.113.7')).status).toBe(401);
    const locked = await login(t, user.email, ADMIN_PASSWORD, '203.0.113.7');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    // The rightful owner from elsewhere, through the same proxy.
    const ok = await login(t, user.email, ADMIN_PASSWORD, '198.51.100.9');
    expect(ok.status).toBe(200);
    // The temporary admin is not locked out by anyone's failures either.
    expect((await login(t, TEMP.username, TEMP.password, '203.0.113.7')).status).toBe(200);
  });

  it('an IPv6 client is counted by its /64: new addresses in it do not reset the count', async () => {
    const user = await localUser(t, admin, 'readonly', 'v6@example.test');
    for (let i = 1; i <= 5; i++)
      expect((await login(t, user.email, 'wrong password!', `2001:db8:5:6::${i}`)).status).toBe(401);
    expect((await login(t, user.email, ADMIN_PASSWORD, '2001:db8:5:6:abcd::99')).status).toBe(429);
    expect((await login(t, user.email, ADMIN_PASSWORD, '2001:db8:5:7::1')).status).toBe(200);
  });

  it('many clients against one username: slowed, then locked briefly with Retry-After', async () => {
    const user = await localUser(t, admin, 'readonly', 'sprayed@example.test');
    const attempts = Array.from({ length: LOGIN_USERNAME_LOCK_AT }, (_, i) => `192.0.2.${i + 1}`);
    for (let i = 0; i < attempts.length; i += 10) {
      const batch = await Promise.all(
        attempts.slice(i, i + 10).map((from) => login(t, user.email, 'wrong password!', from)),
      );
      expect(batch.map((r) => r.status)).toEqual(Array(batch.length).fill(401));
    }
    const locked = await login(t, user.email, ADMIN_PASSWORD, '198.51.100.200');
    expect(locked.status).toBe(429);
    expect(locked.body.message).toMatch(/many addresses/);
    const retry = Number(locked.headers.get('retry-after'));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(LOGIN_USERNAME_LOCK_SECONDS);
  }, 60_000);
});

describe('exposed directly (no trusted proxies)', () => {
  it('X-Forwarded-For is ignored: made-up addresses do not escape the limit', async () => {
    const { t, admin } = await core(null);
    const user = await localUser(t, admin, 'readonly', 'direct@example.test');
    for (let i = 0; i < 5; i++)
      expect((await login(t, user.email, 'wrong password!', `198.51.100.${i}`)).status).toBe(401);
    expect((await login(t, user.email, ADMIN_PASSWORD, '198.51.100.99')).status).toBe(429);
  });
});

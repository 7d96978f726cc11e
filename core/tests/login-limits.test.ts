/**
 * The sign-in limits behind a reverse proxy (CORE_TRUSTED_PROXIES) and exposed directly:
 * - per (username, client): one client's failures lock that client only; another client signs in;
 * - without trusted proxies X-Forwarded-For is ignored (a client cannot pick its own bucket);
 * - IPv6 clients are counted by their /64;
 * - many clients against one username: strange clients slowed (a growing wait), never an account-wide lock;
 * - that wait is a line per username: parallel strange clients go one per delay, a full line answers 429 to them
 *   only (a known device, the temporary admin and other usernames sign in at once); the line is the database's,
 *   so a second Core on the same database gives no second line;
 * - a client that signed in before (its device token) is neither locked nor slowed by other clients' failures,
 *   and its token ends with the password or the user.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientAddress, limitKey } from '../src/auth/clientAddress';
import { parseAddressList } from '@shared/ops';
import type { CoreConfig } from '../src/config';
import { LOGIN_PACING, LoginPacer } from '../src/domain/loginPacing';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { buildApp } from '../src/api/app';
import { ADMIN_PASSWORD, corePerCase, localUser, type TestCore } from './helpers';

const TEMP = { username: 'root', password: 'temporary admin password' };
const cores = corePerCase();

/** A short line for the flood tests (the defaults would make them last a minute). */
const FAST = { stepMs: 25, maxMs: 250, queueMax: 10 };

async function core(trusted: string | null, loginPacing?: CoreConfig['loginPacing']) {
  const t = await cores.start({
    temporaryAdmin: TEMP,
    trustedProxies: trusted ? parseAddressList(trusted, 'CORE_TRUSTED_PROXIES') : null,
    loginPacing,
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
    ({ t, admin } = await core('127.0.0.1', FAST));
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

  it('many clients against one username: a strange client is slowed, never locked out; nobody locks the account', async () => {
    const user = await localUser(t, admin, 'readonly', 'sprayed@example.test');
    // 30 failures from 6 addresses (5 each: every one of them reaches its own limit), then more from a 7th.
    const flood = Array.from({ length: 30 }, (_, i) => `192.0.2.${Math.floor(i / 5) + 1}`);
    for (let i = 0; i < flood.length; i += 10) {
      const batch = await Promise.all(
        flood.slice(i, i + 10).map((from) => login(t, user.email, 'wrong password!', from)),
      );
      expect(batch.map((r) => r.status)).toEqual(Array(batch.length).fill(401));
    }
    expect((await login(t, user.email, 'wrong password!', '192.0.2.7')).status).toBe(401);
    // The right password from a fresh address: admitted after a wait that grew with the failures, not a 429.
    const started = performance.now();
    const ok = await login(t, user.email, ADMIN_PASSWORD, '198.51.100.200');
    const waited = performance.now() - started;
    expect(ok.status).toBe(200);
    expect(waited).toBeGreaterThanOrEqual(FAST.maxMs - 10);
    // Each flooding address is limited on its own (429 with Retry-After), whatever the password.
    const limited = await login(t, user.email, ADMIN_PASSWORD, '192.0.2.1');
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  }, 90_000);
});

describe('recognized devices (device tokens)', () => {
  let t: TestCore;
  let admin: string;
  beforeAll(async () => {
    ({ t, admin } = await core('127.0.0.1'));
  });
  const withDevice = (username: string, password: string, from: string, device_token: string) =>
    t.call('POST', '/api/v1/auth/login', {
      body: { username, password, device_token },
      headers: { 'x-forwarded-for': from },
    });
  const lockAddress = async (username: string, from: string) => {
    for (let i = 0; i < 5; i++) expect((await login(t, username, 'wrong password!', from)).status).toBe(401);
    expect((await login(t, username, 'wrong password!', from)).status).toBe(429);
  };

  it('a client that signed in before is neither locked nor slowed by other clients’ failures, even behind the same address', async () => {
    const user = await localUser(t, admin, 'readonly', 'known@example.test');
    const first = await login(t, user.email, ADMIN_PASSWORD, '198.51.100.10');
    expect(first.status).toBe(200);
    const device = first.body.device_token as string;
    expect(device).toEqual(expect.any(String));
    // It is no access token.
    expect((await t.call('GET', '/api/v1/auth/me', { token: device })).status).toBe(401);
    // Strangers flood the username, some from the device's own address (a shared NAT).
    const flood = Array.from({ length: 10 }, (_, i) => `192.0.2.${100 + Math.floor(i / 5)}`);
    await Promise.all(flood.map((from) => login(t, user.email, 'wrong password!', from)));
    await lockAddress(user.email, '198.51.100.10');
    const started = performance.now();
    const again = await withDevice(user.email, ADMIN_PASSWORD, '198.51.100.10', device);
    expect(again.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(LOGIN_PACING.stepMs * 4);
    expect(again.body.device_token).toEqual(expect.any(String));
    // Without the token the same address is refused, and a forged or foreign token counts for nothing.
    expect((await login(t, user.email, ADMIN_PASSWORD, '198.51.100.10')).status).toBe(429);
    expect((await withDevice(user.email, ADMIN_PASSWORD, '198.51.100.10', device.slice(0, -4) + 'AAAA')).status).toBe(
      429,
    );
    const other = await localUser(t, admin, 'readonly', 'other-known@example.test');
    const othersDevice = (await login(t, other.email, ADMIN_PASSWORD, '198.51.100.11')).body.device_token as string;
    expect((await withDevice(user.email, ADMIN_PASSWORD, '198.51.100.10', othersDevice)).status).toBe(429);
  }, 60_000);

  it('a device has its own limit: five failures with its token lock that device only', async () => {
    const user = await localUser(t, admin, 'readonly', 'own-limit@example.test');
    const device = (await login(t, user.email, ADMIN_PASSWORD, '198.51.100.20')).body.device_token as string;
    for (let i = 0; i < 5; i++)
      expect((await withDevice(user.email, 'wrong password!', '198.51.100.20', device)).status).toBe(401);
    const locked = await withDevice(user.email, ADMIN_PASSWORD, '198.51.100.20', device);
    expect(locked.status).toBe(429);
    expect(locked.body.message).toMatch(/from this device/);
    // The same address without the token is another client.
    expect((await login(t, user.email, ADMIN_PASSWORD, '198.51.100.20')).status).toBe(200);
  });

  it('a device token ends when the password changes or the user is deleted', async () => {
    const user = await localUser(t, admin, 'readonly', 'changes@example.test');
    const device = (await login(t, user.email, ADMIN_PASSWORD, '198.51.100.30')).body.device_token as string;
    await lockAddress(user.email, '198.51.100.30');
    expect((await withDevice(user.email, ADMIN_PASSWORD, '198.51.100.30', device)).status).toBe(200);

    const NEW = 'a brand new password for this user';
    const changed = await t.call('PUT', `/api/v1/users/${user.id}`, { token: admin, body: { password: NEW } });
    expect(changed.status).toBe(200);
    // The address is still limited for strangers, and the old token makes this client one of them.
    expect((await login(t, user.email, NEW, '198.51.100.30')).status).toBe(429);
    expect((await withDevice(user.email, NEW, '198.51.100.30', device)).status).toBe(429);

    // Deleted and created again with the same address: a new user, the old token is nothing to it.
    const fresh = (await login(t, user.email, NEW, '198.51.100.31')).body.device_token as string;
    expect((await t.call('DELETE', `/api/v1/users/${user.id}`, { token: admin })).status).toBe(204);
    const again = await localUser(t, admin, 'readonly', user.email);
    await lockAddress(again.email, '198.51.100.31');
    expect((await withDevice(again.email, ADMIN_PASSWORD, '198.51.100.31', fresh)).status).toBe(429);
  });

  it('the temporary admin’s device token works the same way', async () => {
    const device = (await login(t, TEMP.username, TEMP.password, '198.51.100.40')).body.device_token as string;
    await lockAddress(TEMP.username, '198.51.100.40');
    expect((await withDevice(TEMP.username, TEMP.password, '198.51.100.40', device)).status).toBe(200);
  });
});

describe('a line per username for strange clients', () => {
  // A constant wait (step = max), long enough that a line stays full while the test's requests arrive.
  const LINE = { stepMs: 1_500, maxMs: 1_500, queueMax: 3 };
  let t: TestCore;
  let admin: string;
  beforeAll(async () => {
    ({ t, admin } = await core('127.0.0.1', LINE));
  });
  /** 10 failures for the username from two addresses (5 each): from now on strange clients wait in line. */
  const prime = async (username: string, net: number) => {
    for (let i = 0; i < 10; i++)
      expect((await login(t, username, 'wrong password!', `203.0.${net}.${1 + Math.floor(i / 5)}`)).status).toBe(401);
  };
  const parallel = (username: string, password: string, froms: string[]) =>
    Promise.all(froms.map((from) => login(t, username, password, from)));

  it('parallel attempts from many addresses go one per delay, not all at once', async () => {
    const user = await localUser(t, admin, 'readonly', 'spaced@example.test');
    await prime(user.email, 10);
    const N = 3;
    const started = performance.now();
    const answers = await parallel(
      user.email,
      'wrong password!',
      Array.from({ length: N }, (_, i) => `198.18.0.${i + 1}`),
    );
    const took = performance.now() - started;
    expect(answers.map((r) => r.status)).toEqual(Array(N).fill(401));
    // Each waits its delay after the one before (a sleep per request would have let all through after one delay).
    expect(took).toBeGreaterThanOrEqual((N - 1) * LINE.maxMs);
  }, 30_000);

  it('two Cores on one database share the line: together they admit one per delay and queueMax waiting', async () => {
    const user = await localUser(t, admin, 'readonly', 'two-cores@example.test');
    await prime(user.email, 30);
    // A second app instance on the same database, with a line keeper of its own (as another process has).
    const app = buildApp({ ...t.core, loginPacer: new LoginPacer(t.core.db, LINE) });
    const second = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    const secondUrl = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
    try {
      const via = (url: string, from: string) =>
        fetch(`${url}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
          body: JSON.stringify({ username: user.email, password: 'wrong password!' }),
        }).then(async (r) => ({ status: r.status, retryAfter: r.headers.get('retry-after'), at: performance.now() }));
      const started = performance.now();
      // queueMax + 3 attempts each way, alternating between the two instances.
      const answers = await Promise.all(
        Array.from({ length: 2 * (LINE.queueMax + 3) }, (_, i) =>
          via(i % 2 === 0 ? t.url : secondUrl, `198.18.2.${i + 1}`),
        ),
      );
      const admitted = answers.filter((a) => a.status === 401);
      const refused = answers.filter((a) => a.status === 429);
      // One line for both: queueMax admitted in all (two lines would have admitted twice as many).
      expect(admitted).toHaveLength(LINE.queueMax);
      expect(refused).toHaveLength(answers.length - LINE.queueMax);
      for (const r of refused) expect(Number(r.retryAfter)).toBeGreaterThanOrEqual(1);
      // ... one per delay, not one per delay on each instance.
      const times = admitted.map((a) => a.at - started).sort((a, b) => a - b);
      expect(times.at(-1)!).toBeGreaterThanOrEqual(LINE.queueMax * LINE.maxMs - 50);
    } finally {
      second.close();
    }
  }, 30_000);

  it('a full line answers 429 to strange clients only; a known device, the temporary admin and other usernames sign in at once', async () => {
    const user = await localUser(t, admin, 'readonly', 'queued@example.test');
    const other = await localUser(t, admin, 'readonly', 'bystander@example.test');
    const signedIn = await login(t, user.email, ADMIN_PASSWORD, '198.51.100.50');
    const device = signedIn.body.device_token as string;
    await prime(user.email, 20);

    const flood = parallel(
      user.email,
      'wrong password!',
      Array.from({ length: LINE.queueMax + 4 }, (_, i) => `198.18.1.${i + 1}`),
    );
    await new Promise((resolve) => setTimeout(resolve, 300)); // the flood is in line
    const timed = async (call: Promise<{ status: number }>) => {
      const started = performance.now();
      const { status } = await call;
      return { status, ms: performance.now() - started };
    };
    const known = await timed(
      t.call('POST', '/api/v1/auth/login', {
        body: { username: user.email, password: ADMIN_PASSWORD, device_token: device },
        headers: { 'x-forwarded-for': '198.51.100.50' },
      }),
    );
    const temporary = await timed(login(t, TEMP.username, TEMP.password, '198.18.1.200'));
    const bystander = await timed(login(t, other.email, ADMIN_PASSWORD, '198.18.1.201'));
    // The line is still full: a strange client with the right password is told when to come back.
    const turnedAway = await login(t, user.email, ADMIN_PASSWORD, '198.18.1.202');
    for (const r of [known, temporary, bystander]) {
      expect(r.status).toBe(200);
      expect(r.ms).toBeLessThan(LINE.maxMs / 2);
    }
    expect(turnedAway.status).toBe(429);
    expect(turnedAway.body.message).toMatch(/waiting for this username/);
    const retryAfter = Number(turnedAway.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(Math.ceil((LINE.queueMax * LINE.maxMs) / 1000));

    const answers = await flood;
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(LINE.queueMax).fill(401), ...Array(4).fill(429)]);
    const refused = answers.find((r) => r.status === 429)!;
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.body.request_id).toEqual(expect.any(String));

    // Once the line has gone, a strange client is served again (after its wait).
    const started = performance.now();
    expect((await login(t, user.email, ADMIN_PASSWORD, '198.18.1.203')).status).toBe(200);
    expect(performance.now() - started).toBeGreaterThanOrEqual(LINE.maxMs - 10);
  }, 30_000);
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

import { describe, expect, it } from 'vitest';
import {
  ERROR_CODES,
  ERROR_STATUS,
  isDatabaseUnavailable,
  pagination,
  parseAddressList,
  withHeader,
} from '../src/index';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('knows an unreachable server, a restart, too many connections, a statement timeout, a missing database', () => {
    for (const code of [
      'ECONNREFUSED',
      'ECONNRESET',
      'ENOTFOUND',
      'CONNECT_TIMEOUT',
      'CONNECTION_ENDED',
      '08006',
      '08001',
      '57P01',
      '57P03',
      '53300',
      '57014',
      '3D000',
    ]) {
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(true);
    }
    const refusing = withCode('55000', 'database "x" is not currently accepting connections');
    expect(isDatabaseUnavailable(refusing)).toBe(true);
  });

  it('looks through causes (drizzle wraps the driver’s error), a few levels deep', () => {
    const wrapped = Object.assign(new Error('Failed query'), {
      cause: Object.assign(new Error('wrap'), { cause: withCode('ECONNREFUSED') }),
    });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
    let deep: Error = withCode('ECONNREFUSED');
    for (let i = 0; i < 10; i++) deep = Object.assign(new Error('wrap'), { cause: deep });
    expect(isDatabaseUnavailable(deep)).toBe(false);
  });

  it('is not fooled by query errors or other values', () => {
    for (const code of ['42601', '23505', '22P02', '42P01'])
      expect(isDatabaseUnavailable(withCode(code)), code).toBe(false);
    for (const value of [null, undefined, 'ECONNREFUSED', 42, new Error('boom'), { code: 5 }])
      expect(isDatabaseUnavailable(value)).toBe(false);
  });
});

describe('pagination', () => {
  it('counts pages and reads only page and limit', () => {
    expect(pagination({ page: 2, limit: 10 }, 35)).toEqual({ page: 2, limit: 10, total: 35, totalPages: 4 });
    expect(pagination({ page: 1, limit: 50 }, 0)).toEqual({ page: 1, limit: 50, total: 0, totalPages: 0 });
    const query = { page: 1, limit: 20, search: 'x' };
    expect(pagination(query, 20)).toEqual({ page: 1, limit: 20, total: 20, totalPages: 1 });
  });
});

describe('the error table', () => {
  it('maps each of tRPC’s code names to its HTTP status', () => {
    expect(ERROR_STATUS).toMatchObject({
      BAD_REQUEST: 400,
      UNAUTHORIZED: 401,
      NOT_FOUND: 404,
      PAYLOAD_TOO_LARGE: 413,
      SERVICE_UNAVAILABLE: 503,
    });
    expect(ERROR_CODES).toContain('TOO_MANY_REQUESTS');
    for (const code of ERROR_CODES) expect(code).toMatch(/^[A-Z_]+$/);
  });

  it('withHeader sets a header, copying a Response whose headers are immutable', async () => {
    const own = withHeader(Response.json({ a: 1 }), 'x-request-id', 'id-12345678');
    expect(own.headers.get('x-request-id')).toBe('id-12345678');
    const immutable = Response.redirect('http://example.test/', 302); // its headers are immutable
    expect(() => immutable.headers.set('x', 'y')).toThrow();
    const copied = withHeader(immutable, 'x-request-id', 'id-87654321');
    expect(copied.headers.get('x-request-id')).toBe('id-87654321');
    expect(copied.status).toBe(302);
  });
});

describe('parseAddressList', () => {
  it('reads addresses and ranges of both families', () => {
    const list = parseAddressList('10.0.0.0/8, 192.0.2.7 2001:db8::/32', 'TRUSTED');
    expect(list.check('10.1.2.3', 'ipv4')).toBe(true);
    expect(list.check('192.0.2.7', 'ipv4')).toBe(true);
    expect(list.check('192.0.2.8', 'ipv4')).toBe(false);
    expect(list.check('2001:db8::1', 'ipv6')).toBe(true);
  });

  it('names the variable and the bad entry', () => {
    expect(() => parseAddressList('10.0.0.0/33', 'HUB_TRUSTED_PROXIES')).toThrow(
      /HUB_TRUSTED_PROXIES: "10.0.0.0\/33" is not/,
    );
    expect(() => parseAddressList('proxy.internal', 'CORE_TRUSTED_PROXIES')).toThrow(
      /CORE_TRUSTED_PROXIES: "proxy.internal"/,
    );
  });
});

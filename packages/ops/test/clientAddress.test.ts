import { describe, expect, it } from 'vitest';
import { addressBucket, clientAddress, forwardedChain, normalizeIp, parseForwardedEntry } from '../src/clientAddress';
import { parseAddressList } from '../src/addresses';

const proxies = parseAddressList('10.0.0.0/8, 2001:db8:ffff::/48', 'TEST_PROXIES');

describe('normalizeIp and parseForwardedEntry', () => {
  it('gives one text per address: IPv6 compressed, IPv4-mapped IPv6 as IPv4, ports and brackets dropped', () => {
    expect(normalizeIp('2001:DB8:0:0:0:0:0:1')).toEqual({ ip: '2001:db8::1', family: 6 });
    expect(normalizeIp('::ffff:192.0.2.7')).toEqual({ ip: '192.0.2.7', family: 4 });
    expect(normalizeIp('::ffff:c000:207')).toEqual({ ip: '192.0.2.7', family: 4 });
    expect(normalizeIp('fe80::1%eth0')).toBeNull();
    expect(normalizeIp('example.com')).toBeNull();
    expect(parseForwardedEntry('192.0.2.7:5678')).toEqual({ ip: '192.0.2.7', family: 4 });
    expect(parseForwardedEntry('[2001:db8::1]:443')).toEqual({ ip: '2001:db8::1', family: 6 });
    expect(parseForwardedEntry('unknown')).toBeNull();
  });
});

describe('clientAddress', () => {
  it('without trusted proxies is the peer (the last entry), whatever the client wrote', () => {
    expect(clientAddress('198.51.100.1, 203.0.113.9', null)).toEqual({ ip: '203.0.113.9', family: 4 });
    expect(clientAddress(forwardedChain('198.51.100.1', '::ffff:203.0.113.9'), null)?.ip).toBe('203.0.113.9');
    expect(clientAddress(null, null)).toBeNull();
  });

  it('skips trusted proxies from the right and never reads left of the first untrusted hop', () => {
    expect(clientAddress('1.1.1.1, 198.51.100.1, 10.0.0.2, 10.0.0.1', proxies)?.ip).toBe('198.51.100.1');
    expect(clientAddress('2001:db8:1::5, 2001:db8:ffff::1', proxies)?.ip).toBe('2001:db8:1::5');
    expect(clientAddress('10.0.0.3, 10.0.0.1', proxies)?.ip).toBe('10.0.0.3'); // all proxies: the leftmost
  });

  it('is no address when an entry that is not one comes before an untrusted hop (one rule for both services)', () => {
    expect(clientAddress('garbage, 10.0.0.2, 10.0.0.1', proxies)).toBeNull();
    expect(clientAddress('198.51.100.1, not-an-ip, 10.0.0.1', proxies)).toBeNull();
    expect(clientAddress('198.51.100.1, garbage', null)).toBeNull(); // not even the peer
    expect(clientAddress('garbage, 198.51.100.1, 10.0.0.1', proxies)?.ip).toBe('198.51.100.1'); // never reached
  });

  it('joins repeated X-Forwarded-For headers and appends the peer', () => {
    expect(forwardedChain(['1.1.1.1', '2.2.2.2'], '10.0.0.1')).toBe('1.1.1.1, 2.2.2.2, 10.0.0.1');
    expect(forwardedChain(undefined, '10.0.0.1')).toBe('10.0.0.1');
    expect(forwardedChain('1.1.1.1', undefined)).toBe('1.1.1.1');
    expect(forwardedChain(undefined, undefined)).toBeNull();
  });
});

describe('addressBucket', () => {
  it('keeps IPv4 as it is and counts IPv6 by its /64', () => {
    expect(addressBucket('192.0.2.7')).toBe('192.0.2.7');
    expect(addressBucket('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressBucket({ ip: '2001:db8::1', family: 6 })).toBe('2001:db8:0:0::/64');
    expect(addressBucket('2001:db8:1:2:aaaa::1')).toBe(addressBucket('2001:db8:1:2:ffff:1:2:3'));
    expect(addressBucket('unknown')).toBe('unknown');
  });
});

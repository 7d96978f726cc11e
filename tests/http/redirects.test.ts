/** After sign-in the browser goes only to this Hub (parsed origins, not prefixes); under HTTPS only the __Secure- cookie counts. */
import { afterEach, expect, it } from 'vitest';
import { credentialFromHeaders } from '../../server/auth/credentials';
import { sameOriginPath } from '../../server/auth/redirects';
import { reloadConfig } from '../../server/config';

const base = 'https://hub.example';

it('keeps same-origin paths and refuses every way out', () => {
  expect(sameOriginPath('/account/keys?x=1#top', '/account', base)).toBe('/account/keys?x=1#top');
  expect(sameOriginPath('https://hub.example/dashboard', '/account', base)).toBe('/dashboard');
  for (const away of [
    '//evil.example',
    '/\\evil.example',
    '/\t/evil.example',
    '/\n/evil.example',
    'https://hub.example.evil.example/',
    'https://hub.example@evil.example/',
    'javascript:alert(1)',
    'http://hub.example/',
  ]) {
    expect(sameOriginPath(away, '/account', base), away).toBe('/account');
  }
});

const saved = process.env.HUB_URL;
afterEach(() => {
  process.env.HUB_URL = saved;
});

it('reads only the __Secure- session cookie under HTTPS, and only the plain one over HTTP', () => {
  const cookie = {
    get: (n: string) => (n === 'cookie' ? 'authjs.session-token=plain; __Secure-authjs.session-token=secure' : null),
  };
  process.env.HUB_URL = 'https://hub.example';
  reloadConfig();
  expect(credentialFromHeaders(cookie, { allowSessionCookie: true })).toBe('secure');
  const plainOnly = { get: (n: string) => (n === 'cookie' ? 'authjs.session-token=plain' : null) };
  expect(credentialFromHeaders(plainOnly, { allowSessionCookie: true })).toBeNull();
  process.env.HUB_URL = 'http://hub.test';
  reloadConfig();
  expect(credentialFromHeaders(cookie, { allowSessionCookie: true })).toBe('plain');
});

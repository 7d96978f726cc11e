/**
 * A malformed Hub instance key (svh_) is refused by Core itself, before the Hub is asked: the shared token
 * format (@shared/tokens) checks prefix, length, alphabet and checksum.
 */
import { issueSecret } from '@shared/tokens';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { configFromEnv } from '../src/config';
import { coreWithAdmin, expectErrorShape, type TestCore } from './helpers';

let t: TestCore;
let admin: string;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ t, admin, stop } = await coreWithAdmin());
});
afterAll(() => stop?.());

// Nothing listens here: a call to the Hub would fail with 502, so a 400 shows the Hub was never asked.
const NO_HUB = 'http://127.0.0.1:9';

it('PUT /settings/hub refuses a malformed key with a 400 naming instance_key, without calling the Hub', async () => {
  const good = issueSecret('svh_').secret;
  const flipped = good.slice(0, 10) + (good[10] === 'a' ? 'b' : 'a') + good.slice(11);
  const cases: [string, RegExp][] = [
    ['svh_garbage', /42 characters/],
    [issueSecret('svp_').secret, /must start with svh_/],
    [flipped, /checksum/],
    [good.slice(0, 30) + '#' + good.slice(31), /letters and digits/],
  ];
  for (const [key, why] of cases) {
    const res = await t.call('PUT', '/api/v1/settings/hub', {
      token: admin,
      body: { hub_url: NO_HUB, instance_key: key },
    });
    expect(res.status, key).toBe(400);
    expectErrorShape(res, key);
    expect(res.body.code).toBe('BAD_REQUEST');
    expect(res.body.message, key).toMatch(/instance_key: not a Hub instance key/);
    expect(res.body.message, key).toMatch(why);
    expect(res.body.issues[0].path).toEqual(['instance_key']);
  }
  // A well-formed key is checked with the Hub: unreachable here, so 502 and nothing stored.
  const wellFormed = await t.call('PUT', '/api/v1/settings/hub', {
    token: admin,
    body: { hub_url: NO_HUB, instance_key: good },
  });
  expect(wellFormed.status).toBe(502);
  expect(wellFormed.body.code).toBe('BAD_GATEWAY');
});

it('CORE_HUB_INSTANCE_KEY must be a well-formed key: Core refuses to start and says what to do', () => {
  const env = { CORE_HUB_URL: 'https://hub.example', CORE_HUB_INSTANCE_KEY: 'svh_' + 'a'.repeat(38) };
  expect(() => configFromEnv(env)).toThrow(
    /CORE_HUB_INSTANCE_KEY is not a Hub instance key: it has a wrong checksum.*Copy the whole key/,
  );
  expect(() => configFromEnv({ ...env, CORE_HUB_INSTANCE_KEY: 'hunter2' })).toThrow(/must start with svh_/);
  expect(configFromEnv({ ...env, CORE_HUB_INSTANCE_KEY: issueSecret('svh_').secret }).hub?.url).toBe(
    'https://hub.example',
  );
});

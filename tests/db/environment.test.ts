/**
 * config.ts's readEnv: every setting reads the environment through it. Tests and the CLI set variables before
 * first use and see them at once; the production server fixes the environment at start, after which a setting
 * is read from process.env once (a later change of process.env in that process is not seen).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { config, fixEnvironment, readEnv } from '../../server/config';
import { limitOf } from '../../server/api/rateLimit';

afterEach(() => {
  fixEnvironment(false);
  delete process.env.HUB_TEST_SETTING;
  delete process.env.HUB_RATE_LIMIT_ANONYMOUS;
  delete process.env.HUB_MCP_MAX_RESPONSE_BYTES;
});

describe('readEnv', () => {
  it('follows process.env until the environment is fixed', () => {
    expect(readEnv('HUB_TEST_SETTING')).toBeUndefined();
    process.env.HUB_TEST_SETTING = 'one';
    expect(readEnv('HUB_TEST_SETTING')).toBe('one');
    process.env.HUB_RATE_LIMIT_ANONYMOUS = '7';
    expect(limitOf('anonymous')).toBe(7);
  });

  it('keeps each variable as first read once fixed, settings included, and follows process.env again when unfixed', () => {
    process.env.HUB_TEST_SETTING = 'before';
    process.env.HUB_RATE_LIMIT_ANONYMOUS = '7';
    process.env.HUB_MCP_MAX_RESPONSE_BYTES = '1000';
    fixEnvironment();
    expect(readEnv('HUB_TEST_SETTING')).toBe('before');
    expect(config.mcpMaxResponseBytes).toBe(1000);
    process.env.HUB_TEST_SETTING = 'after';
    process.env.HUB_RATE_LIMIT_ANONYMOUS = '9';
    process.env.HUB_MCP_MAX_RESPONSE_BYTES = '2000';
    expect(readEnv('HUB_TEST_SETTING')).toBe('before');
    expect(config.mcpMaxResponseBytes).toBe(1000);
    // Read for the first time after fixing: the value of that moment, kept from then on.
    expect(limitOf('anonymous')).toBe(9);
    process.env.HUB_RATE_LIMIT_ANONYMOUS = '11';
    expect(limitOf('anonymous')).toBe(9);
    fixEnvironment(false);
    expect(readEnv('HUB_TEST_SETTING')).toBe('after');
    expect(limitOf('anonymous')).toBe(11);
  });
});

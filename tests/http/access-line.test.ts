/**
 * The access line is written as one preformatted string (server/log.ts accessLineText), not through pino's object
 * walk: it must be the very line pino writes for the same fields, escaping included, so that log readers see no change.
 */
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { accessLineText, type Caller } from '../../server/log';

/** What pino writes for these fields with the access logger's options (@shared/logger createLogger, redact off) at this time. */
function pinoLine(level: 'info' | 'debug', time: number, fields: Record<string, unknown>): string {
  let written = '';
  const logger = pino(
    { level: 'debug', base: { service: 'hub' }, timestamp: () => `,"time":${time}` },
    { write: (line: string) => (written += line) },
  );
  logger[level](fields, 'request');
  return written;
}

const instance: Caller = { kind: 'instance', id: '59f8dc2c-7838-42a3-9b2b-61e83de792f4' };
const anonymous: Caller = { kind: 'anonymous' };

describe('the access line', () => {
  it.each([
    ['a keyed 304', 'info', 'GET', '/api/v1/catalog/templates/updates', 304, 0.1, instance, false],
    ['an anonymous 200', 'info', 'GET', '/api/v1/catalog/templates', 200, 12, anonymous, false],
    ['a probe at debug', 'debug', 'GET', '/healthz', 200, 0, anonymous, false],
    ['an aborted upload', 'info', 'POST', '/api/v1/admin/categories', 401, 1500.3, anonymous, true],
    [
      'a path with a quote, a backslash and a control character',
      'info',
      'GET',
      '/a"b\\c\u0001',
      404,
      0.2,
      anonymous,
      false,
    ],
    ['a path with text beyond ASCII', 'info', 'GET', '/kategorie/über-α', 404, 0.2, anonymous, false],
  ] as const)('is the line pino writes: %s', (_, level, method, route, status, durationMs, caller, aborted) => {
    const time = 1_795_938_304_017;
    const requestId = 'req-test-0001';
    const ours = accessLineText(level, time, requestId, method, route, status, durationMs, caller, aborted);
    const fields = { requestId, method, route, status, durationMs, caller, ...(aborted && { aborted: true }) };
    expect(ours).toBe(pinoLine(level, time, fields));
    expect(JSON.parse(ours)).toMatchObject({ route, status, caller, msg: 'request' });
  });

  it('leaves out a missing method, as pino leaves out an undefined field', () => {
    const ours = accessLineText('info', 1, 'req-test-0002', undefined, '/x', 400, 0, anonymous, false);
    expect(ours).toBe(
      pinoLine('info', 1, {
        requestId: 'req-test-0002',
        method: undefined,
        route: '/x',
        status: 400,
        durationMs: 0,
        caller: anonymous,
      }),
    );
    expect(JSON.parse(ours)).not.toHaveProperty('method');
  });
});

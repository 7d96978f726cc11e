import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  describeIssues,
  ERROR_STATUS,
  errorAnswer,
  ServiceError,
  toWireError,
  TransportError,
  WIRE_CODE,
  type ServiceErrorCode,
  type WireError,
} from '../src/index';

const zodFailure = (schema: z.ZodType, value: unknown) => {
  const result = schema.safeParse(value);
  if (result.success) throw new Error('expected a failure');
  return result.error;
};

describe('the code table', () => {
  it('gives every domain code a wire code with a status', () => {
    const codes: ServiceErrorCode[] = [
      'invalid',
      'unauthenticated',
      'forbidden',
      'not_found',
      'conflict',
      'too_large',
      'rate_limited',
      'unavailable',
      'bad_gateway',
      'internal',
    ];
    const statuses = codes.map((c) => ERROR_STATUS[WIRE_CODE[c]]);
    expect(statuses).toEqual([400, 401, 403, 404, 409, 413, 429, 503, 502, 500]);
  });
});

describe('describeIssues: the one wording of validation failures', () => {
  it('names each field, the unknown ones with their path, and counts what is left off', () => {
    const schema = z.strictObject({ name: z.string().min(1), nested: z.strictObject({ a: z.number() }) });
    const err = zodFailure(schema, { name: '', nested: { a: 1, b: 2, c: 3 }, extra: true });
    const message = describeIssues(err.issues);
    expect(message).toMatch(/^Invalid input: /);
    expect(message).toContain('name: ');
    expect(message).toContain('unknown fields: nested.b, nested.c');
    expect(message).toContain('unknown field: extra');
    const many = Array.from({ length: 7 }, (_, i) => ({ path: [`f${i}`], message: 'bad' }));
    expect(describeIssues(many)).toBe('Invalid input: f0: bad; f1: bad; f2: bad; f3: bad; f4: bad (and 2 more)');
    expect(describeIssues([{ message: 'Expected an object' }])).toBe('Invalid input: Expected an object');
  });
});

describe('toWireError', () => {
  it('answers a ServiceError with its code, message, reason and Retry-After', () => {
    const e = toWireError(
      new ServiceError('rate_limited', 'slow down', { retryAfterSeconds: 7, reason: 'per_address' }),
    );
    expect(e).toMatchObject({ status: 429, code: 'TOO_MANY_REQUESTS', message: 'slow down', reason: 'per_address' });
    expect(e.headers).toEqual({ 'retry-after': '7' });
    expect(e.kind).toBe('refusal');
    // unavailable (a dependency the domain names) says when to retry even when the thrower did not.
    expect(toWireError(new ServiceError('unavailable', 'the engine is down')).headers).toEqual({ 'retry-after': '5' });
  });

  it('answers a zod error with the one wording and the issues, never echoing the input', () => {
    const err = zodFailure(z.object({ token: z.string().max(3) }), { token: 'secret-value' });
    const e = toWireError(err);
    expect(e).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    expect(e.message).toMatch(/^Invalid input: token: /);
    expect(e.issues?.[0]).toMatchObject({ path: ['token'], message: expect.any(String) });
    expect(JSON.stringify(e)).not.toContain('secret-value');
  });

  it('answers a transport refusal with its code', () => {
    expect(toWireError(new TransportError('METHOD_NOT_SUPPORTED', 'POST only'))).toMatchObject({
      status: 405,
      code: 'METHOD_NOT_SUPPORTED',
      message: 'POST only',
    });
  });

  it('answers a database outage 503 with Retry-After, whatever wraps it', () => {
    const outage = new Error('Failed query', { cause: Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }) });
    const e = toWireError(new ServiceError('internal', 'x', { cause: outage }));
    expect(e).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE', kind: 'outage' });
    expect(e.headers['retry-after']).toBe('5');
  });

  it('answers anything else 500 without its details, and keeps the failure for the log', () => {
    const bug = new Error('relation "users" does not exist: select * from users');
    const e = toWireError(bug);
    expect(e).toMatchObject({ status: 500, code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });
    expect(e.kind).toBe('unexpected');
    expect(e.cause).toBe(bug);
  });

  it('lets a service translate its framework errors and add headers', () => {
    class FrameworkError extends Error {}
    const e = toWireError(new FrameworkError('nope'), {
      translate: (err) => (err instanceof FrameworkError ? new ServiceError('unauthenticated', err.message) : err),
      headers: (w): Record<string, string> => (w.status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
    });
    expect(e).toMatchObject({ status: 401, code: 'UNAUTHORIZED', headers: { 'www-authenticate': 'Bearer' } });
  });
});

describe('errorAnswer', () => {
  it('is the wire answer: status, no-store JSON, the body with the request id', () => {
    const logged: WireError[] = [];
    const answer = errorAnswer(new ServiceError('not_found', 'template not found'), 'req-12345678', {
      log: (e) => logged.push(e),
    });
    expect(answer.status).toBe(404);
    expect(answer.headers).toMatchObject({ 'content-type': 'application/json', 'cache-control': 'no-store' });
    expect(answer.body).toEqual({ code: 'NOT_FOUND', message: 'template not found', request_id: 'req-12345678' });
    expect(logged).toEqual([]);
  });

  it('hands an outage or a bug to the log once', () => {
    const logged: WireError['kind'][] = [];
    const log = (e: WireError) => logged.push(e.kind);
    errorAnswer(new Error('bug'), 'id', { log });
    errorAnswer(Object.assign(new Error('down'), { code: '57P01' }), 'id', { log });
    errorAnswer(new ServiceError('conflict', 'taken'), 'id', { log });
    expect(logged).toEqual(['unexpected', 'outage']);
  });
});

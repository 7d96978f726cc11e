import { describe, expect, it } from 'vitest';
import { findUnstorableIssue, MAX_INPUT_DEPTH, unstorable } from '../src/unstorable';

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let v = leaf;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

describe('findUnstorableIssue', () => {
  it('names NUL and lone surrogates in values and keys', () => {
    expect(unstorable('a\u0000b')).toMatch(/NUL/);
    expect(unstorable('\ud800')).toMatch(/lone surrogate/);
    expect(unstorable('\ud83d\ude00')).toBeNull();
    expect(findUnstorableIssue({ a: [{ b: 'x\u0000' }] })).toEqual({
      path: ['a', '0', 'b'],
      message: expect.stringMatching(/NUL/),
    });
    expect(findUnstorableIssue({ a: { 'k\udc00': 1 } })).toMatchObject({ path: ['a', 'k\udc00'], key: true });
    expect(findUnstorableIssue({ a: ['fine', 2, null, true] })).toBeNull();
  });

  it('refuses nesting beyond the limit instead of overflowing the stack', () => {
    expect(findUnstorableIssue(nested(MAX_INPUT_DEPTH))).toBeNull();
    expect(findUnstorableIssue(nested(MAX_INPUT_DEPTH + 1))).toMatchObject({
      message: `is nested deeper than ${MAX_INPUT_DEPTH} levels`,
    });
    // 120 000 levels (what a 240 KB body of brackets parses to): an answer, not a RangeError.
    const deep = JSON.parse('['.repeat(120_000) + ']'.repeat(120_000));
    const issue = findUnstorableIssue({ username: deep });
    expect(issue?.path).toHaveLength(MAX_INPUT_DEPTH);
    expect(issue?.path[0]).toBe('username');
  });
});

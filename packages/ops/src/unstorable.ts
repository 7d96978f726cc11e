/**
 * Input PostgreSQL cannot store, checked by both services before any rule runs so that it is a 400 naming the
 * field, never a 500 from the database: the NUL character (text and jsonb refuse it), a lone UTF-16 surrogate (not
 * Unicode: jsonb refuses its escape, text would silently get U+FFFD), and nesting deeper than MAX_INPUT_DEPTH (no
 * field of either API nests that deep; walking an unbounded one would overflow the stack).
 */
export const MAX_INPUT_DEPTH = 32;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why `s` cannot be stored, or null. */
export function unstorable(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(s)) return 'must be valid Unicode (it contains a lone surrogate)';
  return null;
}

export interface UnstorableIssue {
  /** Keys and indexes from the top of the value to the problem ([] for the value itself). */
  path: string[];
  /** The problem; `key: true` when it is the field name (the last entry of `path`), not its value. */
  message: string;
  key?: true;
}

/** The first problem in a JSON-like value (keys included, depth first), or null. */
export function findUnstorableIssue(value: unknown, maxDepth = MAX_INPUT_DEPTH): UnstorableIssue | null {
  const walk = (v: unknown, path: string[]): UnstorableIssue | null => {
    if (typeof v === 'string') {
      const message = unstorable(v);
      return message ? { path, message } : null;
    }
    if (typeof v !== 'object' || v === null) return null;
    // Checked before descending: the walk never goes deeper than the limit, whatever the input.
    if (path.length >= maxDepth) return { path, message: `is nested deeper than ${maxDepth} levels` };
    for (const [key, item] of Object.entries(v)) {
      const message = unstorable(key);
      if (message) return { path: [...path, key], message, key: true };
      const found = walk(item, [...path, key]);
      if (found) return found;
    }
    return null;
  };
  return walk(value, []);
}

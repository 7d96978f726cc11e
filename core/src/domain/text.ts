/**
 * Strings the database cannot store faithfully: PostgreSQL refuses the NUL character in text and jsonb,
 * and a lone UTF-16 surrogate is not Unicode (jsonb refuses its escape; text would silently get U+FFFD).
 * Every adapter checks its input with this before any rule runs, so such input is a 400 naming the field.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

export function unstorable(s: string): string | null {
  if (s.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(s)) return 'must be valid Unicode (it contains a lone surrogate)';
  return null;
}

/** The first string in a JSON value (keys included) that cannot be stored: "<field>: <problem>", or null. */
export function findUnstorable(value: unknown, at = ''): string | null {
  if (typeof value === 'string') {
    const problem = unstorable(value);
    return problem ? `${at || 'body'}: ${problem}` : null;
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i], at ? `${at}.${i}` : String(i));
      if (found) return found;
    }
    return null;
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const keyProblem = unstorable(key);
      if (keyProblem) return `${at ? `${at}: a field name` : 'a field name'} ${keyProblem}`;
      const found = findUnstorable(v, at ? `${at}.${key}` : key);
      if (found) return found;
    }
  }
  return null;
}

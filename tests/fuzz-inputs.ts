/**
 * Inputs for the fuzz tests (tests/http/openapi-fuzz.test.ts, tests/mcp/trpc-mcp-fuzz.test.ts): a seeded PRNG, a
 * generator of plausible values from a JSON schema (naming real rows where a field is an id or a slug),
 * and hostile values of the wrong shape or beyond every sane range.
 */
import { randomUUID } from 'node:crypto';

export type Schema = Record<string, any>;
export type Json = unknown;

/** mulberry32: small, fast and good enough to pick test inputs. */
export function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  const pick = <T>(xs: readonly T[]): T => xs[int(0, xs.length - 1)]!;
  return { next, int, pick, chance: (p: number) => next() < p };
}
export type Rng = ReturnType<typeof prng>;

/**
 * Values that name real rows (so plausible inputs reach past "not found"), filled in beforeAll; the users
 * behind the credentials are not among them, so no fuzzed call deletes or demotes a caller.
 */
export const known = {
  uuids: [] as string[],
  slugs: [] as string[],
  byField: {} as Record<string, string[]>,
  idsByPath: {} as Record<string, string[]>,
  /** The ids an `id` field of the operation being generated names (its path's rows). */
  idPool: [] as string[],
};

export function generate(schema: Schema | undefined, rng: Rng, name = ''): Json {
  if (!schema) return null;
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return generate(rng.pick(alternatives), rng, name);
  if (schema.allOf) return generate(Object.assign({}, ...schema.allOf), rng, name);
  if ('const' in schema) return schema.const;
  if (schema.enum) return rng.pick(schema.enum);
  const type = Array.isArray(schema.type) ? rng.pick(schema.type.filter((t: string) => t !== 'null')) : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, Json> = {};
      const required = new Set<string>(schema.required ?? []);
      for (const [key, sub] of Object.entries<Schema>(schema.properties ?? {})) {
        if (required.has(key) || rng.chance(0.5)) out[key] = generate(sub, rng, key);
      }
      return out;
    }
    case 'array':
      return Array.from({ length: rng.int(0, Math.min(3, schema.maxItems ?? 3)) }, () =>
        generate(schema.items, rng, name),
      );
    case 'integer':
    case 'number': {
      const lo = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 0);
      const hi = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : lo + 100);
      return rng.int(lo, Math.min(hi, lo + 1000));
    }
    case 'boolean':
      return rng.chance(0.5);
    case 'string':
      return plausibleString(schema, rng, name);
    default:
      return rng.pick(['x', 1, true, null]);
  }
}

function plausibleString(schema: Schema, rng: Rng, name: string): string {
  if (schema.format === 'uuid' || /(^id$|_id$)/.test(name))
    return rng.chance(0.8)
      ? rng.pick(known.byField[name] ?? (name === 'id' && known.idPool.length ? known.idPool : known.uuids))
      : randomUUID();
  if (schema.format === 'date-time' || /^(since|until)$/.test(name))
    return new Date(Date.now() - rng.int(0, 1e10)).toISOString();
  if (name === 'ip') return rng.chance(0.5) ? `203.0.113.${rng.int(1, 254)}` : `2001:db8::${rng.int(1, 9999)}`;
  if (schema.format === 'email' || name === 'email') return `fuzz${rng.int(0, 1e6)}@example.test`;
  if (schema.format === 'uri' || /url/.test(name)) return `https://example.test/${rng.int(0, 1e6)}`;
  if (name === 'slug') return rng.chance(0.5) ? rng.pick(known.slugs) : `fuzz-${rng.int(0, 1e6)}`;
  const min = schema.minLength ?? 1;
  const max = Math.min(schema.maxLength ?? 24, min + 24);
  const letters = 'abcdefghijklmnopqrstuvwxyz0123456789-';
  return Array.from({ length: rng.int(min, Math.max(min, max)) }, (_, i) =>
    i === 0 ? 'f' : rng.pick([...letters]),
  ).join('');
}

/** Values of the wrong shape or beyond every sane range. */
export const HOSTILE: readonly Json[] = [
  'x'.repeat(200_000),
  'a\u0000b',
  'not-a-uuid',
  '00000000-0000-0000-0000-00000000000g',
  -1,
  1e308,
  2 ** 53 + 1,
  -2147483649,
  1.5,
  '0000-01-01T00:00:00Z',
  '+275760-09-13T00:00:00.001Z',
  'yesterday',
  '',
  true,
  null,
  [],
  [1, 'two', null],
  { nested: { deeper: ['x'] } },
  '\ud800',
  '../../etc/passwd',
  "' or 1=1 --",
];
export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];

export const asText = (v: Json) => (typeof v === 'string' ? v : JSON.stringify(v));

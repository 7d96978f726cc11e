/**
 * Query-string friendly scalars. The REST dispatcher hands query parameters to the procedures as the
 * strings they are (no schema is coerced); these pipes read "2" and "true"/"false" explicitly, and accept
 * the same values from tRPC callers (numbers, booleans). Anything else is refused with its field named.
 */
import { z } from 'zod';

export const queryInt = (schema: z.ZodNumber) =>
  z.preprocess((v) => (typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v), schema.int());

export const queryBool = () =>
  z.preprocess((v) => (v === 'true' ? true : v === 'false' ? false : v), z.boolean({ error: 'must be true or false' }));

/** "a,b,c" or ["a","b"] → ["a","b","c"] (empty entries dropped). */
export const queryList = () =>
  z.preprocess(
    (v) =>
      typeof v === 'string'
        ? v.split(',')
        : Array.isArray(v)
          ? v.flatMap((s) => (typeof s === 'string' ? s.split(',') : [s]))
          : v,
    z
      .array(z.string().trim().max(100))
      .max(50)
      .transform((list) => list.filter((s) => s.length > 0)),
  );

const EARLIEST = Date.parse('0001-01-01T00:00:00Z');
const LATEST = Date.parse('9999-12-31T23:59:59.999Z');

/** An ISO 8601 timestamp PostgreSQL can store: years 0001–9999 in UTC (year 0000 is valid ISO, not a PostgreSQL date). */
export const isoDateTime = (error = 'must be an ISO 8601 timestamp, e.g. 2026-01-31T12:00:00Z') =>
  z.iso.datetime({ offset: true, error }).refine(
    (s) => {
      const t = Date.parse(s);
      return t >= EARLIEST && t <= LATEST;
    },
    { error: 'must be between 0001-01-01 and 9999-12-31 (UTC)' },
  );

export const PaginationSchema = z.object({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  totalPages: z.number().int(),
});

export const pageInput = {
  page: queryInt(z.number().min(1, 'must be at least 1').max(1_000_000)).optional(),
  /** Larger values are clamped to 100, as the spec's "maximum 100". */
  limit: queryInt(z.number().min(1, 'must be at least 1')).optional(),
};

export function resolvePage(input: { page?: number; limit?: number }) {
  return { page: input.page ?? 1, limit: Math.min(input.limit ?? 50, 100) };
}

/** The `pagination` object of a paged answer: one helper for the Hub and Core. */
export { pagination } from '@shared/ops';

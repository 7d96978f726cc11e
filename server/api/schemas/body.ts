/**
 * JSON-body numbers and booleans that stay strict.
 *
 * trpc-to-openapi (3.3) calls coerceSchema() on every OpenAPI procedure's input — JSON bodies included,
 * and recursing into objects and array elements — setting `coerce` on number and boolean schemas in
 * place. After the first REST call, "yes" and "false" are accepted as true, "12" and null as numbers, on
 * REST and on tRPC alike. It does not descend into pipes, so these wrappers keep the strict check.
 */
import { z } from 'zod';

export const jsonBool = () => z.boolean().pipe(z.boolean());

export const jsonInt = (min: number, max: number, range = `must be ${min} to ${max}`) =>
  z.number().int('must be an integer').min(min, range).max(max, range).pipe(z.number());

/**
 * trpc-to-openapi 3.3 sets `coerce` in place on every number/boolean/bigint/date schema it reaches in an
 * OpenAPI procedure's input (query and JSON body alike, into nested objects and array elements), so a
 * bare z.number()/z.boolean() silently starts accepting "12", "" or "false"(→ true) — on tRPC too.
 * Every input must use the pipe-wrapped scalars of server/api/schemas/{query,body}.ts, which it leaves
 * alone. This walks every procedure's input the way the library does and lists what it would coerce.
 */
import { expect, it } from 'vitest';
import { instanceofZodTypeCoercible, instanceofZodTypeObject, unwrapZodType } from 'trpc-to-openapi';
import { z } from 'zod';
import { appRouter } from '../../server/api/root';
import { jsonBool, jsonInt } from '../../server/api/schemas/body';
import { queryInt } from '../../server/api/schemas/query';

type AnySchema = any;

function coercibleFields(schema: AnySchema, path: string[] = []): string[] {
  const found: string[] = [];
  for (const [key, field] of Object.entries<AnySchema>(schema.shape)) {
    const inner = unwrapZodType(field, false);
    if (instanceofZodTypeCoercible(inner)) found.push([...path, key].join('.'));
    else if (instanceofZodTypeObject(inner)) found.push(...coercibleFields(inner, [...path, key]));
  }
  return found;
}

it('the walk finds what the library would coerce, and passes the wrapped scalars', () => {
  const sample = z.object({
    bare: z.number(),
    nested: z.object({ flag: z.boolean().optional() }),
    list: z.array(z.object({ n: z.number().nullable() })),
    ok1: jsonBool(),
    ok2: jsonInt(1, 5),
    ok3: queryInt(z.number()).optional(),
  });
  expect(coercibleFields(sample)).toEqual(['bare', 'nested.flag', 'list.n']);
});

it('no REST procedure has an input field that trpc-to-openapi would coerce', () => {
  const offenders: string[] = [];
  let checked = 0;
  for (const [name, procedure] of Object.entries<AnySchema>(appRouter._def.procedures)) {
    if (!procedure._def.meta?.openapi) continue;
    checked++;
    for (const input of procedure._def.inputs ?? []) {
      const unwrapped = unwrapZodType(input, true);
      if (instanceofZodTypeObject(unwrapped)) offenders.push(...coercibleFields(unwrapped).map((f) => `${name}: ${f}`));
    }
  }
  expect(checked).toBeGreaterThan(40);
  expect(offenders).toEqual([]);
});

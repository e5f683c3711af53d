// Shapes that cross the boundary are checked once, here, with the contract's zod schemas.
import type * as z from 'zod/mini';
import { fieldErrors } from '../../contract/field-errors.ts';
import { Invalid } from '../domain/errors.ts';

export function parse<S extends z.ZodMiniType>(schema: S, body: unknown, what = 'request body'): z.output<S> {
  const result = schema.safeParse(body, { reportInput: true });
  if (!result.success) {
    const errors = fieldErrors(result.error);
    throw new Invalid(`Invalid ${what}: ` + errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
  }
  return result.data;
}

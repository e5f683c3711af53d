import type * as z from 'zod/mini';

export interface FieldError {
  field: string;
  message: string;
}

/** What a value looked like, short enough for a console line and never a whole secret. */
export function describeValue(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (typeof value === 'string') return JSON.stringify(value.length > 24 ? value.slice(0, 20) + '…' : value);
  if (typeof value === 'function') return 'a function';
  if (Array.isArray(value)) return 'an array';
  if (value === null || typeof value !== 'object') return String(value);
  return 'an object';
}

/**
 * One readable line per failed field: what was expected and, when the parse reported it
 * (zod's reportInput), what came instead.
 */
export function fieldErrors(error: z.core.$ZodError): FieldError[] {
  return error.issues.map((issue) => ({
    field: issue.path.join('.') || '(root)',
    message: `expected ${issue.message}` + ('input' in issue ? `, received ${describeValue(issue.input)}` : ''),
  }));
}

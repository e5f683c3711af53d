import type { FieldError } from '../../contract/field-errors.ts';

export type ApiErrorKind = 'http' | 'network' | 'shape';

/** Why an API call failed, and what the API said; `describe()` names the call. */
export class ApiError extends Error {
  // Declared, then set in one go: parameter properties would be emitted twice (a class field
  // and an assignment each), bytes every customer downloads.
  declare readonly kind: ApiErrorKind;
  declare readonly status: number;
  declare readonly fields: FieldError[];
  /** From a Retry-After header, in milliseconds. */
  declare readonly retryAfterMs?: number;
  constructor(kind: ApiErrorKind, message: string, status = 0, fields: FieldError[] = [], retryAfterMs?: number) {
    super(message);
    Object.assign(this, { name: 'ApiError', kind, status, fields, retryAfterMs });
  }
}

export const isAbort = (error: unknown): boolean => (error as Error | undefined)?.name === 'AbortError';

import type { FieldError } from '../../contract/field-errors.ts';

export type ApiErrorKind = 'http' | 'network' | 'shape';

/** Why an API call failed, and what the API said; `describe()` names the call. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly kind: ApiErrorKind,
    message: string,
    readonly status = 0,
    readonly fields: FieldError[] = [],
    /** From a Retry-After header, in milliseconds. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

export const isAbort = (error: unknown): boolean => (error as Error | undefined)?.name === 'AbortError';

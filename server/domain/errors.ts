// Errors of the domain, by what went wrong rather than by HTTP status; the edge maps each
// to a status code in one place (http/respond.ts). Stores and rules throw these only.
import type { FieldError } from '../../contract/field-errors.ts';

export class DomainError extends Error {
  constructor(
    message: string,
    readonly fields?: FieldError[],
  ) {
    super(message);
  }
}
/** Input that breaks a rule: each broken field named. */
export class Invalid extends DomainError {}
/** No key, an unknown key, or the wrong kind of key. */
export class Unauthorized extends DomainError {}
/** A known key that may not do this (a live key in the sandbox). */
export class Forbidden extends DomainError {}
export class NotFound extends DomainError {}
/** The request is fine but the state it meets refuses it. */
export class Conflict extends DomainError {}
/** Money in a token (or on a chain) the payment did not ask for: it never counts toward it. */
export class NotItsToken extends Conflict {}
export class TooLarge extends DomainError {}
/** Something the answer needs is not available now (a fresh exchange rate); try again later. */
export class Unavailable extends DomainError {}
/** The path exists, but not with this method: `allowed` are the methods it has. */
export class MethodNotAllowed extends DomainError {
  constructor(
    message: string,
    readonly allowed: string[],
  ) {
    super(message);
  }
}
export class TooMany extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** An Invalid for one field, with the message also naming it. */
export const invalidField = (field: string, message: string): Invalid => new Invalid(`${field}: ${message}`, [{ field, message }]);

/** An Invalid for several fields at once, or nothing when the list is empty. */
export function invalidFields(errors: FieldError[], prefix = ''): Invalid | undefined {
  if (errors.length === 0) return undefined;
  return new Invalid(prefix + errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);
}

// Reading the service's answers, for every client of it (the widget, the dashboard, the SDK
// and its CLI): one envelope parser and one error class. An answer is `{ status, statusCode,
// message?, data }`, an error `{ status: "error", statusCode, message, errors? }`. Platform-free:
// each client does its own fetch (the widget reads the clock from Date, the dashboard sends its
// cookie) and hands over the status and the text. It is in the widget's bundle: every byte counts.
import type * as z from 'zod/mini';
import type { FieldError } from './field-errors.ts';
import { ErrorBody } from './schemas.ts';

/** `http`: the service refused (`status`, its words in `said`); `network`: no answer; `shape`: an answer that is not the contract. */
export type ServiceErrorKind = 'http' | 'network' | 'shape';

/** Why a call to the service failed; `message` names the call (method and URL, never a key). */
export class ServiceError extends Error {
  // Declared, then set in one go: parameter properties would be emitted twice (a class field
  // and an assignment each), bytes every customer downloads.
  declare readonly kind: ServiceErrorKind;
  /** The HTTP status; 0 when there was no answer. */
  declare readonly status: number;
  /** The fields the service named (a 400's `errors`). */
  declare readonly fields: FieldError[];
  /** From a Retry-After header, in milliseconds. */
  declare readonly retryAfterMs?: number;
  /** The service's own message (a refusal's envelope), for a person to read; undefined when it gave none. */
  declare readonly said?: string;
  constructor(kind: ServiceErrorKind, message: string, status = 0, fields: FieldError[] = [], retryAfterMs?: number, said?: string) {
    super(message);
    Object.assign(this, { name: 'ServiceError', kind, status, fields, retryAfterMs, said });
  }
}

/** How a `shape` error says the answer was not JSON at all (what a server that is not this service sends: an HTML page). */
export const NOT_JSON = 'the response is not JSON';

/**
 * An answer's text as the contract reads it: not JSON is a `shape` error, a status outside
 * 2xx an `http` error with the envelope's message and fields, a success checked against
 * `schema` (none: the JSON as it came). `where` ("GET https://…/api/v1/coins") starts every
 * message; `retryAfter` is the Retry-After header (seconds; the HTTP-date form is ignored).
 */
export function readAnswer<S extends z.ZodMiniType>(where: string, status: number, text: string, schema?: S, retryAfter?: string | null): z.output<S> {
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    throw new ServiceError('shape', `${where}: ${NOT_JSON}`, status);
  }
  if (status < 200 || status > 299) {
    const failure = ErrorBody.safeParse(json);
    const said = failure.data?.message;
    const seconds = retryAfter ? Number(retryAfter) : NaN;
    throw new ServiceError(
      'http',
      `${where} answered ${status}: ${said ?? 'no error message'}`,
      status,
      failure.data?.errors,
      seconds >= 0 ? seconds * 1000 : undefined,
      said,
    );
  }
  if (!schema) return json as z.output<S>;
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const detail = parsed.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.')}: expected ${i.message}`)
      .join('; ');
    throw new ServiceError('shape', `${where}: unexpected response (${detail})`, status);
  }
  return parsed.data;
}

import { describe, expect, it } from 'vitest';
import { readAnswer, ServiceError } from './answer.ts';
import { QrResponse } from './schemas.ts';

const where = 'GET http://127.0.0.1:1/api/v1/transaction/qr/ord-1';
const failure = (run: () => unknown): ServiceError => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return error as ServiceError;
  }
  throw new Error('no error');
};

describe('readAnswer, the one envelope parser of the widget, the dashboard and the SDK', () => {
  it('answers a success as the schema reads it, and the JSON as it came without one', () => {
    const qr = { status: 'success', statusCode: 200, data: { uri: 'ethereum:0x1', size: 21, path: 'M0 0h1v1h-1z' } };
    expect(readAnswer(where, 200, JSON.stringify(qr), QrResponse).data.size).toBe(21);
    expect(readAnswer(where, 201, JSON.stringify({ any: 1 }))).toEqual({ any: 1 });
    expect(readAnswer(where, 204, '')).toBeUndefined();
  });

  it("turns a refusal into an http error: the call, the status, the service's words, its fields and Retry-After", () => {
    const body = { status: 'error', statusCode: 400, message: 'Invalid request body', errors: [{ field: 'amount', message: 'expected a number' }] };
    const error = failure(() => readAnswer(where, 400, JSON.stringify(body), QrResponse, '3'));
    expect(error).toMatchObject({ name: 'ServiceError', kind: 'http', status: 400, said: 'Invalid request body', retryAfterMs: 3000 });
    expect(error.message).toBe(`${where} answered 400: Invalid request body`);
    expect(error.fields).toEqual(body.errors);
    // An HTTP-date Retry-After is left to the backoff.
    expect(failure(() => readAnswer(where, 429, JSON.stringify(body), undefined, 'Wed, 21 Oct 2026 07:28:00 GMT')).retryAfterMs).toBeUndefined();
  });

  it('keeps nothing of an error body that is not the envelope', () => {
    const error = failure(() => readAnswer(where, 500, JSON.stringify({ message: 42, errors: [{ field: 1 }] })));
    expect(error).toMatchObject({ kind: 'http', status: 500, said: undefined, fields: [] });
    expect(error.message).toBe(`${where} answered 500: no error message`);
  });

  it('calls an answer that is not JSON, or not the contract, a shape error naming the fields', () => {
    expect(failure(() => readAnswer(where, 502, '<html>Bad gateway</html>'))).toMatchObject({
      kind: 'shape',
      status: 502,
      message: `${where}: the response is not JSON`,
    });
    const wrong = failure(() => readAnswer(where, 200, JSON.stringify({ status: 'success', statusCode: 200, data: { uri: 1, size: 'big' } }), QrResponse));
    expect(wrong).toMatchObject({ kind: 'shape', status: 200, said: undefined });
    expect(wrong.message).toBe(
      `${where}: unexpected response (data.uri: expected text; data.size: expected a whole number; data.path: expected an SVG path of M, h, v and z)`,
    );
  });
});

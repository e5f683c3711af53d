// Every error answer carries a stable `code` beside its message and field errors, and every
// answer a `Request-Id` that is also in the request's log line. Each error kind has its code
// once (domain/errors.ts), the code names its status (contract/error-codes.ts), each operation
// of the document lists the codes it may answer, and real refusals answer what their operation lists.
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES, type ErrorCode } from '../../../contract/error-codes.ts';
import { startService, type Service } from '../../service/app.ts';
import * as errors from '../../domain/errors.ts';
import { errorReply, internalError } from '../respond.ts';
import { createLogger } from '../../service/log.ts';
import { documented, openApiDocument, openApiPath, type JsonSchema } from '../../api/api-doc.ts';
import { GENERAL_CODE, operationCodes } from '../../api/error-codes.ts';
import { ROUTES } from '../../api/table.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const pub = { 'x-api-key': publicKey };
const sec = { authorization: `Bearer ${secretKey}` };

/** Every error class the domain exports, with the code its instances answer. */
const kinds = Object.values(errors).filter((v): v is typeof errors.DomainError => typeof v === 'function' && v.prototype instanceof Error);

describe('error codes', () => {
  it('are snake_case, each with one status, and every kind of error has its own', () => {
    for (const [code, status] of Object.entries(ERROR_CODES)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(status).toBeGreaterThanOrEqual(400);
    }
    const made = new Map<ErrorCode, string>();
    for (const Kind of kinds) {
      const error =
        (Kind as unknown) === errors.TooMany
          ? new errors.TooMany('refused', 3)
          : (Kind as unknown) === errors.MethodNotAllowed
            ? new errors.MethodNotAllowed('refused', ['GET'])
            : new Kind('refused', [{ field: 'x', message: 'bad' }]);
      const reply = errorReply(error);
      // The answer's status is the code's, and the code is in the body beside the message and fields.
      expect(reply.status, Kind.name).toBe(ERROR_CODES[error.code]);
      expect(reply.body).toEqual(expect.objectContaining({ status: 'error', statusCode: reply.status, code: error.code, message: 'refused' }));
      if (Kind !== errors.DomainError) {
        expect(made.has(error.code), `${Kind.name} and ${made.get(error.code)} share ${error.code}`).toBe(false);
        made.set(error.code, Kind.name);
      }
    }
    expect(errorReply(new errors.Invalid('x', [{ field: 'amount', message: 'bad' }])).body).toEqual({
      status: 'error',
      statusCode: 400,
      code: 'validation_failed',
      message: 'x',
      errors: [{ field: 'amount', message: 'bad' }],
    });
    expect(errorReply(new errors.TooMany('wait', 7)).headers).toEqual({ 'retry-after': '7' });
    expect(errorReply(new errors.InsufficientBalance('amount: too much')).status).toBe(409);
    expect(internalError().body).toEqual(expect.objectContaining({ statusCode: 500, code: 'internal_error' }));
    // Every code is made by one kind (internal_error by the pipeline's catch-all).
    expect([...made.keys(), 'internal_error'].sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  it('are declared per operation by the route objects, and the document lists them under each status', () => {
    {
      const doc = openApiDocument(ROUTES, 'http://127.0.0.1:4010') as {
        paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: JsonSchema }> }> }>>;
      };
      const everywhere = new Set<string>();
      for (const route of ROUTES.filter(documented)) {
        const op = doc.paths[openApiPath(route.path)][route.method.toLowerCase()];
        const byStatus = operationCodes(route);
        for (const error of route.errors ?? []) {
          // What a route declares is a known status or code, and is in its list.
          const code = typeof error === 'string' ? error : GENERAL_CODE[error];
          expect(code, `${route.method} ${route.path}: ${error}`).toBeDefined();
          expect(byStatus.get(ERROR_CODES[code])).toContain(code);
        }
        for (const [status, codes] of byStatus) {
          for (const code of codes) expect(ERROR_CODES[code]).toBe(status);
          const schema = op.responses[status]?.content['application/json'].schema as { properties: { code: { enum: string[] } }; required: string[] };
          expect(schema, `${route.method} ${route.path} ${status}`).toBeDefined();
          expect(schema.properties.code.enum).toEqual(codes);
          expect(schema.required).toContain('code');
          codes.forEach((c) => everywhere.add(c));
        }
        // A route's checks are refusals it may answer.
        for (const check of route.checks ?? []) for (const code of check.refuses) expect(byStatus.get(ERROR_CODES[code])).toContain(code);
        if (route.checks?.some((c) => c.refuses.includes('balance_settlement_required'))) expect(byStatus.get(409)).toContain('balance_settlement_required');
        if (route.checks?.some((c) => c.refuses.includes('rate_limited'))) expect(byStatus.get(429)).toEqual(['rate_limited']);
        if (route.auth !== 'none') expect(byStatus.get(401)).toEqual(['unauthorized']);
      }
      // Every code is some operation's, but the wrong method's (a path's, not an operation's) and
      // wrong_token's (the chain watcher's: a transfer in another token is recorded, never credited;
      // the sandbox credits a payment only in its own token, so no request meets it), and the
      // refund claim page's (a hosted page's calls, /refund/claim: not the API's reference), and
      // the dashboard's step-up lockout's (/dashboard/api/step-up: not the API's reference either).
      expect(Object.keys(ERROR_CODES).filter((c) => !everywhere.has(c))).toEqual([
        'factor_locked',
        'method_not_allowed',
        'wrong_token',
        'refund_link_used',
        'refund_link_expired',
      ]);
      expect(() => operationCodes({ method: 'GET', path: '/x', auth: 'none', errors: [418] })).toThrow(/no error code for status 418/);
    }
  });
});

describe('answers over HTTP', () => {
  let api: Service;
  let doc: {
    paths: Record<string, Record<string, { responses: Record<string, { content: Record<string, { schema: { properties: { code: { enum: string[] } } } }> }> }>>;
  };
  const lines: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    api = await startService({ demo: true, jobs: false, logger: createLogger('info', sink), publicInitializesPerMinute: { perClient: 3 } });
    doc = await (await fetch(`${api.url}/api/v1/openapi.json`)).json();
  }, 60_000);
  afterAll(() => api?.close());

  async function refused(method: string, path: string, headers: Record<string, string>, body: unknown, template: string, status: number, code: ErrorCode) {
    const response = await fetch(api.url + path, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const json = (await response.json()) as { code: string; statusCode: number; message: string };
    expect({ path, status: response.status, code: json.code }).toEqual({ path, status, code });
    expect(json.statusCode).toBe(status);
    expect(json.message.length).toBeGreaterThan(0);
    // What it answered is what the document says this operation may answer at this status.
    if (template) expect(doc.paths[template][method.toLowerCase()].responses[status].content['application/json'].schema.properties.code.enum).toContain(code);
    return response;
  }

  it('answers each refusal with its code, one its operation documents', async () => {
    await refused(
      'POST',
      '/api/v1/transaction/initialize',
      pub,
      { reference: 'ec-1', coin: 'USDT', currency: 'USD', amount: 'lots' },
      '/api/v1/transaction/initialize',
      400,
      'validation_failed',
    );
    await refused('GET', '/api/v1/coins', {}, undefined, '/api/v1/coins', 401, 'unauthorized');
    await refused('GET', '/api/v1/payments/nothing-here', sec, undefined, '/api/v1/payments/{reference}', 404, 'not_found');
    await refused(
      'POST',
      '/api/v1/transaction/initialize',
      pub,
      { reference: 'x', metadata: { big: 'x'.repeat(17_000) } },
      '/api/v1/transaction/initialize',
      413,
      'payload_too_large',
    );
    await refused('DELETE', '/api/v1/coins', pub, undefined, '', 405, 'method_not_allowed');
    await refused('GET', '/api/v1/nowhere', pub, undefined, '', 404, 'not_found');
    await refused(
      'POST',
      '/api/v1/sandbox/deposit',
      { 'x-api-key': DEMO_MERCHANT.keys.live.publicKey },
      { reference: 'ec-1', kind: 'exact' },
      '/api/v1/sandbox/deposit',
      403,
      'sandbox_unavailable',
    );
    await refused('POST', '/api/v1/swaps/quote', sec, { from: 'USDC', to: 'USDT', amount: '1' }, '/api/v1/swaps/quote', 409, 'balance_settlement_required');
    await refused(
      'POST',
      '/api/v1/bank/payouts/initiate',
      { authorization: `Bearer ${DEMO_MERCHANT.keys.live.secretKey}` },
      { payout_bank_id: '00000000-0000-4000-8000-000000000000', coin: 'USDT', amount: 1 },
      '/api/v1/bank/payouts/initiate',
      409,
      'not_configured',
    );
    // A payment its server priced: a page may not change its amount; nothing paid: not settled.
    expect(
      (
        await fetch(`${api.url}/api/v1/transaction/initialize`, {
          method: 'POST',
          headers: { ...sec, 'content-type': 'application/json' },
          body: JSON.stringify({ reference: 'ec-2', coin: 'USDT', currency: 'USD', amount: '5' }),
        })
      ).status,
    ).toBe(201);
    await refused(
      'POST',
      '/api/v1/transaction/initialize',
      pub,
      { reference: 'ec-2', coin: 'USDT', currency: 'USD', amount: '1' },
      '/api/v1/transaction/initialize',
      409,
      'reference_in_use',
    );
    await refused('POST', '/api/v1/transaction/settle/ec-2', sec, undefined, '/api/v1/transaction/settle/{reference}', 409, 'payment_state');
    // The page's per-address allowance (3 here: the 400, the 413 and the 409 above) is spent: 429 with Retry-After.
    const limited = await refused(
      'POST',
      '/api/v1/transaction/initialize',
      pub,
      { reference: 'ec-3', coin: 'USDT', currency: 'USD', amount: '1' },
      '/api/v1/transaction/initialize',
      429,
      'rate_limited',
    );
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it("gives every answer a Request-Id of its own, also in its log line; a client's id is logged beside it, never answered", async () => {
    const answers = [
      await fetch(`${api.url}/api/v1/coins`, { headers: { ...pub, 'x-request-id': 'client-trace.42' } }),
      await fetch(`${api.url}/api/v1/coins`, { headers: { 'request-id': 'req_spoofed' } }),
      await fetch(`${api.url}/api/v1/nowhere`, { headers: { 'x-request-id': 'bad id\twith tabs' } }),
      await fetch(`${api.url}/api/v1/coins`, { method: 'OPTIONS', headers: { 'x-request-id': 'x'.repeat(65) } }),
      await fetch(`${api.url}/healthz`),
    ];
    const ids = answers.map((r) => r.headers.get('request-id'));
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9_-]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).not.toContain('req_spoofed');
    expect(answers[0].headers.get('access-control-expose-headers')).toContain('request-id');
    await Promise.all(answers.map((r) => r.arrayBuffer()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    const lineOf = (id: string | null) => lines.find((l) => l.msg === 'request' && l.requestId === id);
    expect(lineOf(ids[0])).toEqual(expect.objectContaining({ method: 'GET', path: '/api/v1/coins', status: 200, clientRequestId: 'client-trace.42' }));
    expect(lineOf(ids[1])).toEqual(expect.objectContaining({ status: 401, clientRequestId: 'req_spoofed' }));
    // An id of unsafe characters or over 64 is not logged at all.
    expect(lineOf(ids[2])).toEqual(expect.objectContaining({ path: '/api/v1/nowhere', status: 404 }));
    expect(lineOf(ids[2])).not.toHaveProperty('clientRequestId');
    expect(lineOf(ids[3])).toEqual(expect.objectContaining({ method: 'OPTIONS', status: 204 }));
    expect(lineOf(ids[3])).not.toHaveProperty('clientRequestId');
    expect(lineOf(ids[4])).toEqual(expect.objectContaining({ path: '/healthz' }));
  });
});

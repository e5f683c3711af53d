// The payment's QR code, made by the service: the EIP-681 URI of what is still due (the same
// string the checkout computes), and an SVG path that draws exactly the qrcode package's symbol.
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { startService, type Service } from '../../service/app.ts';
import { paymentUri } from '../../../contract/payment-uri.ts';
import { QrResponse } from '../../../contract/schemas.ts';
import { qrView } from '../qr.ts';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';

// Every answer of the API seen here must be one the OpenAPI document allows.
holdAnswersToOpenApi();

const { publicKey } = DEMO_MERCHANT.keys.test;
let api: Service;
beforeAll(async () => {
  api = await startService({ demo: true, jobs: false });
});
afterAll(() => api.close());

const { create } = createRequire(import.meta.url)('qrcode/lib/core/qrcode') as {
  create(data: Array<{ data: string; mode: 'byte' }>, options: { errorCorrectionLevel: 'M' }): { modules: { size: number; data: Uint8Array } };
};
/** The dark modules a path draws, as a string of 0 and 1, row by row. */
function modulesOf(path: string, size: number): string {
  const dark = Array(size * size).fill('0');
  for (const [, x, y, run] of path.matchAll(/M(\d+) (\d+)h(\d+)v1h-\3z/g)) for (let i = 0; i < Number(run); i++) dark[Number(y) * size + Number(x) + i] = '1';
  return dark.join('');
}
async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(api.url + path, {
    method,
    headers: { 'x-api-key': publicKey, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

describe('the QR code of a payment', () => {
  it("draws every dark module of the qrcode package's symbol, and nothing else, for URIs of every length", () => {
    for (const uri of [
      'ethereum:0x55d398326f99059ff775485246999027b3197955@56/transfer?address=0x3bac2d89ef49958c95e8db81ae904949c6ed8e51&uint256=24745000000000000000',
      'x',
      'é'.repeat(300),
    ]) {
      const { size, path } = qrView(uri);
      const reference = create([{ data: uri, mode: 'byte' }], { errorCorrectionLevel: 'M' }).modules;
      expect(size).toBe(reference.size);
      expect(modulesOf(path, size)).toBe(Array.from(reference.data).join(''));
      expect(path).toMatch(/^[Mhvz\d -]*$/); // what the checkout's schema lets through
    }
  });

  it('encodes what is still due, as the checkout computes it, and follows a partial payment', async () => {
    await call('POST', '/api/v1/transaction/initialize', { reference: 'qr-1', coin: 'USDC', currency: 'USD', amount: 10, accept_partial_payment: true });
    const coin = (await call('GET', '/api/v1/coins')).body.data.find((c: { symbol: string }) => c.symbol === 'USDC');
    const before = await call('GET', '/api/v1/transaction/qr/qr-1');
    expect(QrResponse.safeParse(before.body).success).toBe(true);
    const status = (await call('GET', '/api/v1/transaction/verify/qr-1')).body.data;
    expect(before.body.data.uri).toBe(paymentUri(coin, status.address, status.amountRemaining));
    await call('POST', '/api/v1/sandbox/deposit', { reference: 'qr-1', kind: 'partial' });
    const rest = (await call('GET', '/api/v1/transaction/verify/qr-1')).body.data;
    const after = await call('GET', '/api/v1/transaction/qr/qr-1');
    expect(rest.amountRemaining).toBeLessThan(status.amountRemaining);
    expect(after.body.data.uri).toBe(paymentUri(coin, rest.address, rest.amountRemaining));
  });

  // With one base unit still due, the remainder went through a JSON number (1e-18) and the answer was a 500.
  it('encodes one base unit still due, exactly', async () => {
    await call('POST', '/api/v1/transaction/initialize', { reference: 'qr-wei', coin: 'USDT', currency: 'USD', amount: 10, accept_partial_payment: true });
    const account = { merchant: (await api.parts.merchants.byId(DEMO_MERCHANT.id))!, mode: 'test' as const, via: 'secret' as const };
    const report = { type: 'DEPOSIT_TRANSACTION' as const, data: () => ({}) };
    const payment = await api.parts.payments.get(account, 'qr-wei');
    await api.parts.crediting.credit(
      account,
      'qr-wei',
      { chainId: payment.chainId, token: payment.token, txHash: '0x' + '11'.repeat(32), logIndex: 0, amount: (p) => p.due - 1n },
      Date.now(),
      report,
    );
    const answer = await call('GET', '/api/v1/transaction/qr/qr-wei');
    expect(answer.status).toBe(200);
    expect(answer.body.data.uri).toMatch(/&uint256=1$/);
  });

  it('names the field of a bad reference, and answers 404 for an unknown one', async () => {
    const bad = await call('GET', '/api/v1/transaction/qr/' + encodeURIComponent('no spaces'));
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].field).toBe('reference');
    expect((await call('GET', '/api/v1/transaction/qr/nobody-has-this')).status).toBe(404);
  });
});

// Initialize answers the EIP-681 URI of what is still due, the same the QR endpoint gives and
// the checkout computes from the answer (contract/payment-uri.ts), so a merchant's server can
// show it without a second request.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { paymentUri } from '../../../contract/payment-uri.ts';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';

let api: Service;
beforeAll(async () => {
  api = await startService({ demo: true, jobs: false });
}, 120_000);
afterAll(() => api?.close());

it("answers the payment URI on initialize, again on the same request, equal to the QR endpoint's and the checkout's", async () => {
  const headers = { 'x-api-key': DEMO_MERCHANT.keys.test.publicKey, 'content-type': 'application/json' };
  const init = () =>
    fetch(`${api.url}/api/v1/transaction/initialize`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ reference: 'uri-1', coin: 'USDC', currency: 'USD', amount: '24.50' }),
    });
  const first = await init();
  expect(first.status).toBe(201);
  const { data } = (await first.json()) as { data: { uri: string; address: string; cryptoAmount: number; coin: string; chainId: number } };
  const qr = (await (await fetch(`${api.url}/api/v1/transaction/qr/uri-1`, { headers })).json()) as { data: { uri: string } };
  expect(data.uri).toBe(qr.data.uri);
  const coins = (await (await fetch(`${api.url}/api/v1/coins`, { headers })).json()) as {
    data: Array<{ symbol: string; chainId: number; contractAddress: string; decimals: number }>;
  };
  const coin = coins.data.find((c) => c.symbol === data.coin && c.chainId === data.chainId)!;
  expect(data.uri).toBe(paymentUri(coin, data.address, data.cryptoAmount));
  expect(data.uri).toMatch(new RegExp(`^ethereum:${coin.contractAddress}@${coin.chainId}/transfer\\?address=${data.address}&uint256=[1-9]\\d*$`));
  const again = await init();
  expect(again.status).toBe(200);
  expect(((await again.json()) as { data: { uri: string } }).data.uri).toBe(data.uri);
});

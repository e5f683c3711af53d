// npm run demo: the stub API (which also serves checkout.js) and a merchant shop on
// another origin. Ports and the quote window come from the environment.
import { startStubApi } from './api/server.ts';
import { DEMO_MERCHANT } from './api/catalog.ts';
import { registerWebhook } from './merchant/register.ts';
import { startMerchantSite, WEBHOOK_PATH } from './merchant/server.ts';

const api = await startStubApi({
  port: Number(process.env.API_PORT ?? 4010),
  quoteSeconds: Number(process.env.QUOTE_SECONDS ?? 900),
});
const shop = await startMerchantSite({
  apiUrl: api.url,
  publicKey: DEMO_MERCHANT.keys.test.publicKey,
  secretKey: DEMO_MERCHANT.keys.test.secretKey,
  port: Number(process.env.SHOP_PORT ?? 4020),
});
await registerWebhook(api.url, DEMO_MERCHANT.keys.test.secretKey, shop.url + WEBHOOK_PATH);

console.log(`Stub API and checkout.js  ${api.url}`);
console.log(`Merchant demo shop        ${shop.url}   <- open this`);
console.log(`Test public key           ${DEMO_MERCHANT.keys.test.publicKey}`);
console.log(`Webhooks                  ${shop.url}${WEBHOOK_PATH}; orders at ${shop.url}/orders/<reference>`);
console.log('Press Ctrl+C to stop.');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => void Promise.all([api.close(), shop.close()]).then(() => process.exit(0)));
}

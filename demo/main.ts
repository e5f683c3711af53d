// npm run demo: the service on its embedded database (which also serves checkout.js) and a
// merchant shop on another origin. Ports, the data directory and the quote window come
// from the environment; the data survives a restart.
import { startService } from '../server/app.ts';
import { configFromEnv } from '../server/config.ts';
import { createLogger } from '../server/log.ts';
import { DEMO_MERCHANT, DEMO_PRICES } from '../server/seed.ts';
import { readWebhook, registerWebhook } from './merchant/register.ts';
import { startMerchantSite, WEBHOOK_PATH } from './merchant/server.ts';

const config = configFromEnv({ ...process.env, PORT: process.env.API_PORT ?? process.env.PORT ?? '4010' });
const api = await startService({ ...config, logger: createLogger(process.env.LOG_LEVEL ?? 'warn') });
const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
let endpoint = await readWebhook(api.url, secretKey);
const shop = await startMerchantSite({ apiUrl: api.url, publicKey, secretKey, webhookSecret: endpoint.secret, port: Number(process.env.SHOP_PORT ?? 4020) });
const hook = shop.url + WEBHOOK_PATH;
// The shop's webhook URL is registered only when the demo merchant has none: a URL a
// developer registered survives every restart of the demo.
if (!endpoint.url) endpoint = await registerWebhook(api.url, secretKey, hook);

console.log(`Service and checkout.js   ${api.url}   (database: ${api.db.kind}${config.dataDir ? ` in ${config.dataDir}` : ''})`);
console.log(`Merchant demo shop        ${shop.url}   <- open this`);
console.log(`Test public key           ${publicKey}`);
console.log(`Test secret key           ${secretKey}   (sandbox only; never in a page)`);
console.log(`Webhook signing secret    ${endpoint.secret}`);
console.log(`Webhooks go to            ${endpoint.url}${endpoint.url === hook ? '' : '   (yours, kept: the shop will not see them)'}`);
console.log(`Orders                    ${shop.url}/orders/<reference>`);
console.log(`Price ids for links       ${Object.entries(DEMO_PRICES).map(([name, id]) => `${name} ${id}`).join(', ')}`);
console.log('Press Ctrl+C to stop.');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void Promise.all([api.close(), shop.close()]).then(() => process.exit(0)));
}

// npm run demo: the service on its embedded database (which also serves checkout.js) and a
// merchant shop on another origin. Ports, the data directory and the quote window come
// from the environment; the data survives a restart.
import { startService } from '../server/service/app.ts';
import { configFromEnv } from '../server/service/config.ts';
import { createLogger } from '../server/service/log.ts';
import { DEMO_MERCHANT, DEMO_PRICES } from '../server/service/seed.ts';
import { readWebhook, registerWebhook } from './merchant/register.ts';
import { startMerchantSite, WEBHOOK_PATH } from './merchant/server.ts';
import { deployDevContracts, devAccount, devNetwork } from '../devchain/deploy.ts';
import { startDevChain } from '../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../devchain/sandbox.ts';

/** The service's log, as one readable line per request and per webhook delivery. */
const readable = {
  write(json: string) {
    const line = JSON.parse(json) as Record<string, unknown>;
    if (line.msg === 'request') console.log(`  ${line.method} ${line.path} → ${line.status} (${line.ms} ms)`);
    else if (line.msg === 'webhook delivery')
      console.log(`  webhook ${line.type} ${line.event} → ${line.status || line.error} (attempt ${line.attempt}, ${line.ms} ms)`);
    else if (line.msg === 'reconciliation') {
      // What the deposits' ledger says against the chain, per token in base units.
      const totals = Object.entries((line.totals ?? {}) as Record<string, Record<string, string>>).map(
        ([token, t]) => `${token.slice(0, 8)}…: credited ${t.credited}, swept ${t.swept}, held ${t.held}, on chain ${t.onChain}`,
      );
      console.log(
        `  reconciliation at block ${line.atBlock}: ${line.deposits} deposit lines, ${line.differences} differences${totals.length ? `; ${totals.join('; ')}` : ''}`,
      );
    } else if (line.msg !== 'service started') console.log(`  ${line.msg}${line.err ? `: ${(line.err as { message?: string }).message}` : ''}`);
  },
};
const config = configFromEnv({ ...process.env, PORT: process.env.API_PORT ?? process.env.PORT ?? '4010' });
// The local dev chain: anvil on loopback, a block a second, the test tokens and the deposit
// factory deployed, the dev accounts funded. A payment confirms after two blocks (~2 s).
const chain = await startDevChain({ port: Number(process.env.CHAIN_PORT ?? 8545), blockTimeSeconds: 1 });
// With Uniswap v2 pools of USDC, BUSD and DAI against USDT: balance settlement's swaps are real here.
const contracts = await deployDevContracts(chain, 10, '1000000', { pools: true });
const api = await startService({
  ...config,
  // The demo merchant and its catalogue: public keys, for this machine only.
  demo: true,
  networks: { ...config.networks, test: devNetwork(chain.url, contracts, 2) },
  devChain: DEV_CHAIN_POWERS,
  // Sweeps every 5 s (unless SWEEP_INTERVAL_MS says otherwise), so the payout balance moves while you watch.
  sweepIntervalMs: process.env.SWEEP_INTERVAL_MS ? config.sweepIntervalMs : 5_000,
  logger: createLogger(process.env.LOG_LEVEL ?? 'info', readable),
});
const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
// The demo merchant's deposits are swept to dev account 9, unless a payout address is set.
if (!(await api.parts.merchants.payoutAddress(DEMO_MERCHANT.id, 'test', chain.chainId))) {
  await api.parts.merchants.setPayoutAddress(DEMO_MERCHANT.id, 'test', chain.chainId, devAccount(9).address);
}
let endpoint = await readWebhook(api.url, secretKey);
// The dashboard: a one-time sign-in link for the demo merchant's owner, where a password is set.
const signInToken = await api.parts.dashboard.issueLink(DEMO_MERCHANT.id, Date.now(), 24 * 3_600_000);
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
console.log(`Dashboard                 ${config.publicUrl ?? api.url}/dashboard   (sign in as ${DEMO_MERCHANT.businessEmail})`);
console.log(`Dashboard sign-in link    ${config.publicUrl ?? api.url}/dashboard/welcome#token=${signInToken}   (once, within 24 hours: set a password there)`);
console.log(`Dev chain (anvil)         ${chain.url}   chain id ${chain.chainId}, a block a second, 2 confirmations`);
console.log(
  `Dev tokens                ${Object.entries(contracts.tokens)
    .map(([symbol, address]) => `${symbol} ${address}`)
    .join(', ')}`,
);
console.log(`Deposit factory           ${contracts.factory}   (NOT AUDITED: dev and test use only)`);
console.log(`Dev wallet (funded)       mnemonic "test test … junk", account 1 pays in the sandbox`);
console.log(
  `Price ids for links       ${Object.entries(DEMO_PRICES)
    .map(([name, id]) => `${name} ${id}`)
    .join(', ')}`,
);
console.log('Press Ctrl+C to stop. Requests and webhook deliveries follow, one line each:');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(
    signal,
    () =>
      void Promise.all([api.close(), shop.close()])
        .then(() => chain.stop())
        .then(() => process.exit(0)),
  );
}

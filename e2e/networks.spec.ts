// One coin on two networks of a mode, in a real Chromium. The test keys take USDT on
// the dev chain and on a second chain (another anvil, chain id 31338, set up as a public testnet
// is: the factory through the deployment proxy, its own USDT with 6 decimals). The coin list
// shows USDT twice, each with its network; the customer picks the second, and the payment
// screen, the token contract, the QR code's URI and the warning all name that network. A
// transfer there, read off the screen, is what pays it.
import { createPublicClient, createWalletClient, http, parseUnits, toHex, type Address } from 'viem';
import { TestToken } from '../contracts/artifacts.generated.ts';
import { deployDevContracts, devAccount, devNetwork } from '../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../devchain/sandbox.ts';
import { deployFactory } from '../server/chain/deploy.ts';
import { DEMO_MERCHANT } from '../server/service/seed.ts';
import { expect, shopEvents, startServers, test, type Servers } from './support/fixtures.ts';

const SECOND = 'Second test chain';
let servers: Servers;
let dev: DevChain;
let second: DevChain;
let usdt: Address;

test.beforeAll(async () => {
  dev = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  const contracts = await deployDevContracts(dev, 4);
  second = await startDevChain({ chainId: 31338 });
  const { factory } = await deployFactory(second.url, devAccount(4));
  const issuer = createWalletClient({ account: devAccount(5), transport: http(second.url) });
  const reader = createPublicClient({ transport: http(second.url) });
  usdt = (
    await reader.waitForTransactionReceipt({
      hash: await issuer.deployContract({ chain: null, abi: TestToken.abi, bytecode: TestToken.bytecode, args: ['Tether USD', 'USDT', 6] }),
    })
  ).contractAddress!;
  await reader.waitForTransactionReceipt({
    hash: await issuer.writeContract({
      chain: null,
      address: usdt,
      abi: TestToken.abi,
      functionName: 'mint',
      args: [devAccount(3).address, parseUnits('1000', 6)],
    }),
  });
  const other = {
    chainId: 31338,
    name: SECOND,
    rpcUrls: [second.url],
    confirmations: 2,
    factory,
    tokens: [{ symbol: 'USDT' as const, name: 'Tether USD', address: usdt, decimals: 6 }],
    feeAddress: devAccount(6).address,
  };
  // (feeAddress: where the deposit contract sends the operator's 1% fee here, as the dev chain's treasury does there.)
  servers = await startServers({ networks: { test: [devNetwork(dev.url, contracts, 2), other] }, devChain: DEV_CHAIN_POWERS });
  for (const chainId of [dev.chainId, 31338]) await servers.api.parts.merchants.setPayoutAddress(DEMO_MERCHANT.id, 'test', chainId, devAccount(9).address);
});
test.afterAll(async () => {
  await servers?.close();
  await dev?.stop();
  await second?.stop();
});

test('a coin on two networks is two choices; the one chosen is quoted, shown and paid on its own network', async ({ page }) => {
  await page.goto(servers.shop.url + '/');
  await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
  const dialog = page.locator('[data-service-checkout] [role=dialog]');
  await dialog.getByLabel('Full name').fill('Ada Lovelace');
  await dialog.getByLabel('E-mail').fill('ada@example.com');
  await dialog.getByRole('button', { name: 'Continue' }).click();
  // Grouped by network, each group under its name.
  await expect(dialog.getByRole('heading', { level: 4 })).toHaveText(['Local dev chain', SECOND]);
  await expect(dialog.getByRole('list').nth(1).getByRole('button')).toHaveText([/^USDT Tether USD.*Second test chain$/]);
  const choices = dialog.getByRole('button', { name: /^USDT / });
  await expect(choices).toHaveCount(2);
  await expect(choices.nth(0)).toContainText('Local dev chain');
  await expect(choices.nth(1)).toContainText(SECOND);
  await choices.filter({ hasText: SECOND }).click();

  await expect(dialog.locator('[data-network]')).toContainText(`Network: ${SECOND}`);
  await expect(dialog.locator('[data-contract]')).toHaveText(usdt);
  await expect(dialog.locator('[data-network]')).toContainText(`Send only USDT on ${SECOND}.`);
  await expect(dialog.locator('[data-amount]')).toHaveText('24.745 USDT');
  // The service's QR code is drawn only when its URI is the one the screen made: on chain 31338.
  await expect(dialog.locator('svg[role=img]')).toHaveAttribute(
    'data-uri',
    new RegExp(`^ethereum:${usdt}@31338/transfer\\?address=0x[0-9a-fA-F]{40}&uint256=24745000$`),
  );

  // Paid from a wallet on that network, with what the screen says.
  const address = (await dialog.locator('[data-address]').textContent()) as Address;
  const wallet = createWalletClient({ account: devAccount(3), transport: http(second.url) });
  await wallet.writeContract({ chain: null, address: usdt, abi: TestToken.abi, functionName: 'transfer', args: [address, parseUnits('24.745', 6)] });
  await createPublicClient({ transport: http(second.url) }).request({ method: 'anvil_mine' as 'eth_blockNumber', params: [toHex(2)] as never });
  await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible({ timeout: 15_000 });
  await expect(dialog.locator('[data-receipt]')).toContainText(SECOND);
  await dialog.getByRole('button', { name: 'Done' }).click();
  const events = await shopEvents(page);
  expect(events.map((e) => e.name)).toEqual(['success', 'close']);
  // The merchant's server reads the payment's chain too.
  const verified = await fetch(`${servers.api.url}/api/v1/transaction/verify/${events[0]!.detail.reference}`, {
    headers: { authorization: `Bearer ${DEMO_MERCHANT.keys.test.secretKey}` },
  });
  expect((await verified.json()).data).toMatchObject({ status: 'confirmed', coin: 'USDT', chainId: 31338, amountPaid: 24.745 });
});

// Real payments on a dev chain, in a real Chromium: the sandbox's button as a real transfer,
// and a browser wallet (an injected EIP-6963 test wallet that forwards to the dev node for an
// unlocked dev account) paying in one click. The watcher confirms; onSuccess fires once; a
// signed webhook reaches the shop, which marks the order paid after checking the amount.
import { devAccount } from '../devchain/deploy.ts';
import { expect, modal, openPayment, shopEvents, startServers, test, type Servers } from './support/fixtures.ts';

let servers: Servers;
test.beforeAll(async () => {
  // Three confirmations at a block a second: the "confirming" line stays up for about 2 s.
  servers = await startServers({ chain: { confirmations: 3 } });
});
test.afterAll(() => servers.close());

/** An EIP-6963 wallet for the page (run there by addInitScript, with its arguments): it announces itself and sends through the dev node. */
function injectWallet() {
  return ({ rpcUrl, account, behaviour }: { rpcUrl: string; account: string; behaviour: string }) => {
    let id = 0;
    const node = async (method: string, params: unknown[] = []) => {
      const answer = await (
        await fetch(rpcUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
        })
      ).json();
      if (answer.error) throw Object.assign(new Error(answer.error.message), { code: answer.error.code });
      return answer.result;
    };
    const calls: string[] = [];
    (window as unknown as { walletCalls: string[] }).walletCalls = calls;
    const provider = {
      async request({ method, params }: { method: string; params?: unknown[] }) {
        calls.push(method);
        if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [account];
        if (method === 'wallet_switchEthereumChain') return null;
        if (method === 'eth_sendTransaction' && behaviour === 'decline') throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
        return node(method, params);
      },
    };
    const announce = () =>
      window.dispatchEvent(
        new CustomEvent('eip6963:announceProvider', {
          detail: Object.freeze({ info: { uuid: 'test', name: 'Test Wallet', icon: 'data:image/svg+xml,<svg/>', rdns: 'test.wallet' }, provider }),
        }),
      );
    window.addEventListener('eip6963:requestProvider', announce);
    announce();
  };
}

test('the sandbox\'s "Full" is a real transfer on the dev chain: confirmed, onSuccess once, the order marked paid by a signed webhook', async ({ page }) => {
  const dialog = await openPayment(page, servers.shop.url);
  await expect(dialog.locator('[data-network]')).toContainText('Local dev chain');
  await expect(dialog.locator('svg[role=img]')).toBeVisible(); // the service's QR code, drawn
  await dialog.getByRole('button', { name: 'Full' }).click();
  // Seen on the chain, not yet deep enough: said so, and not called paid.
  await expect(dialog.getByRole('status').filter({ hasText: 'seen on the network' })).toHaveText(
    /^[\d.]+ USDT seen on the network: confirming \([12] of 3\)…$/,
    { timeout: 10_000 },
  );
  await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible({ timeout: 15_000 });
  await dialog.getByRole('button', { name: 'Done' }).click();
  const events = await shopEvents(page);
  expect(events.map((e) => e.name)).toEqual(['success', 'close']);
  const reference = events[0]!.detail.reference as string;
  await expect.poll(() => servers.shop.orders.get(reference)?.timesMarkedPaid, { timeout: 10_000 }).toBe(1);
});

test('a browser wallet pays in one click: switch chain, send the exact token transfer; the watcher confirms', async ({ page }) => {
  await page.addInitScript(injectWallet(), { rpcUrl: servers.chain!.url, account: devAccount(3).address, behaviour: 'pay' });
  const dialog = await openPayment(page, servers.shop.url, 'USDC');
  const pay = dialog.getByRole('button', { name: 'Pay with Test Wallet' });
  await expect(pay).toBeVisible();
  await pay.click();
  await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeVisible({ timeout: 15_000 });
  await expect(dialog.locator('[data-paid]')).toHaveText('24.745 USDC');
  const calls = await page.evaluate(() => (window as unknown as { walletCalls: string[] }).walletCalls);
  expect(calls).toEqual(expect.arrayContaining(['eth_requestAccounts', 'eth_chainId', 'eth_sendTransaction']));
  await dialog.getByRole('button', { name: 'Done' }).click();
  const events = await shopEvents(page);
  expect(events.map((e) => e.name)).toEqual(['success', 'close']);
  await expect.poll(() => servers.shop.orders.get(events[0]!.detail.reference as string)?.timesMarkedPaid, { timeout: 10_000 }).toBe(1);
});

test('a wallet refusal says so and leaves the QR code to pay with', async ({ page }) => {
  await page.addInitScript(injectWallet(), { rpcUrl: servers.chain!.url, account: devAccount(3).address, behaviour: 'decline' });
  const dialog = await openPayment(page, servers.shop.url);
  await dialog.getByRole('button', { name: 'Pay with Test Wallet' }).click();
  await expect(dialog.locator('[data-wallet-note]')).toHaveText('You declined in your wallet. Try again, or pay with the QR code.');
  await expect(dialog.locator('svg[role=img]')).toBeVisible();
  await expect(dialog.getByRole('button', { name: 'Pay with Test Wallet' })).toBeEnabled();
  expect(await modal(page).count()).toBe(1);
});

// Real payments on a dev chain, in a real Chromium: the sandbox's button as a real transfer,
// and a browser wallet (an injected EIP-6963 test wallet that forwards to the dev node for an
// unlocked dev account) paying in one click. The watcher confirms; onSuccess fires once; a
// signed webhook reaches the shop, which marks the order paid after checking the amount. Then
// paying with one signature, from a wallet with no ETH (below).
import { createWalletClient, http, parseUnits, type Address } from 'viem';
import type { Page } from 'playwright/test';
import { TestToken } from '../contracts/artifacts.generated.ts';
import { devAccount, devRpc } from '../devchain/deploy.ts';
import { expectNoViolations } from './support/axe.ts';
import { expect, modal, openPayment, shopEvents, startServers, test, type Servers } from './support/fixtures.ts';

let servers: Servers;
test.beforeAll(async () => {
  // Three confirmations, at the tests' block each 0.25 s.
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
        // Typed data is signed outside the page, by the viem account a test exposes (paying with one signature, below).
        if (method === 'eth_signTypedData_v4')
          return (window as unknown as { signTypedData(json: string): Promise<string> }).signTypedData((params as string[])[1]!);
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
  // The chain's clock stopped while the transfer is in one block: at a block each 0.25 s, three
  // confirmations left the "confirming" line up for about half a second, which a loaded machine
  // missed (CI's run of d0af37f). The transfer waits in the pool until the test mines its block.
  const rpc = (method: string, params: unknown[] = []) => devRpc(servers.chain!.url, method, params);
  const address = (await dialog.locator('[data-address]').textContent())!;
  // The sandbox sends two transactions, its payer's mint and then the transfer: the block is
  // mined once the transfer itself is in the pool. Mined when only the mint was there, the
  // transfer waited for a block that never came (CI's run of 9059a4c).
  const transferTo = `0xa9059cbb${address.slice(2).toLowerCase().padStart(64, '0')}`;
  const pooled = async () => {
    const { pending } = (await rpc('txpool_content')) as { pending: Record<string, Record<string, { input: string }>> };
    return Object.values(pending).some((byNonce) => Object.values(byNonce).some((tx) => tx.input.toLowerCase().startsWith(transferTo)));
  };
  await rpc('evm_setIntervalMining', [0]);
  try {
    await dialog.getByRole('button', { name: 'Full' }).click();
    await expect.poll(pooled, { timeout: 10_000 }).toBe(true);
    await rpc('evm_mine');
    // Seen on the chain, not yet deep enough: said so, and not called paid.
    await expect(dialog.getByRole('status').filter({ hasText: 'seen on the network' })).toHaveText(
      /^[\d.]+ USDT seen on the network: confirming \(1 of 3\)…$/,
      { timeout: 10_000 },
    );
    await expect(dialog.getByRole('heading', { name: 'Payment received' })).toBeHidden();
  } finally {
    // anvil takes a whole-second clock over RPC: the file's later tests mine a block a second.
    await rpc('evm_setIntervalMining', [1]);
  }
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

// Paying with one signature, on the same dev chain: the customer's browser wallet
// (an injected EIP-6963 wallet whose typed-data signatures a viem account makes, outside the
// page) holds USDC and no ETH at all. The checkout offers "Pay with one signature", the wallet
// signs EIP-3009's TransferWithAuthorization, the service relays it from its gas wallet, and the
// watcher confirms the payment: in English, French and Arabic, axe clean. A USDT payment (USDT
// signs nothing), or a wallet holding only USDT, is offered the transfer alone.
const customer = devAccount(12);
const usdtOnly = devAccount(13);
const node = (method: string, params: unknown[]) =>
  fetch(servers.chain!.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  }).then(async (r) => (await r.json()).result);

test.describe('paying with one signature', () => {
  test.beforeAll(async () => {
    const { tokens } = servers.contracts!;
    const minter = createWalletClient({ account: devAccount(3), transport: http(servers.chain!.url) });
    const mint = async (token: Address, to: Address, amount: string) =>
      minter.writeContract({ chain: null, address: token, abi: TestToken.abi, functionName: 'mint', args: [to, parseUnits(amount, await decimals(token))] });
    const decimals = (token: Address) => node('eth_call', [{ to: token, data: '0x313ce567' }, 'latest']).then(Number);
    await mint(tokens.USDC as Address, customer.address, '100');
    await mint(tokens.USDT as Address, customer.address, '100');
    await mint(tokens.USDT as Address, usdtOnly.address, '100');
    // No ETH at all: the customer could not pay a transfer's gas.
    await node('anvil_setBalance', [customer.address, '0x0']);
    await node('anvil_setBalance', [usdtOnly.address, '0x0']);
  });

  /**
   * The test wallet for `account` (reads go to the dev node, every request is recorded), whose
   * typed data `signer` signs: a viem account outside the page, `account` unless a test wants a
   * wrong signature.
   */
  async function injectSigningWallet(page: Page, account: typeof customer, signer = account) {
    await page.exposeFunction('signTypedData', (json: string) => {
      const { types, domain, primaryType, message } = JSON.parse(json);
      const { EIP712Domain: _, ...rest } = types;
      return signer.signTypedData({ domain, types: rest, primaryType, message });
    });
    await page.addInitScript(injectWallet(), { rpcUrl: servers.chain!.url, account: account.address, behaviour: 'pay' });
  }

  /** The shop's form, then the checkout in `locale`, on `coin`'s payment screen. */
  async function payIn(page: Page, coin: string, locale = 'en') {
    await page.goto(`${servers.shop.url}/?locale=${locale}`);
    await page.fill('input[name=name]', 'Ada');
    await page.fill('input[name=email]', 'ada@example.com');
    await page.getByRole('button', { name: 'Pay with stablecoins' }).click();
    const dialog = modal(page);
    await dialog.getByRole('button', { name: new RegExp(`^${coin} `) }).click();
    await expect(dialog.locator('[data-amount]')).toBeVisible();
    return dialog;
  }

  const held = (token: string, who: Address) =>
    node('eth_call', [{ to: token, data: `0x70a08231${who.slice(2).padStart(64, '0')}` }, 'latest']).then((hex: string) => BigInt(hex));

  const WORDS = {
    en: { sign: 'Pay with one signature in Test Wallet, no network fee', received: 'Payment received' },
    fr: { sign: 'Payer d’une seule signature dans Test Wallet, sans frais de réseau', received: 'Paiement reçu' },
    ar: { sign: 'ادفع بتوقيع واحد في Test Wallet، بلا رسوم شبكة', received: 'تم استلام الدفعة' },
  };

  test.use({ reducedMotion: 'reduce' });
  test.describe.configure({ timeout: 120_000 });

  test('a wallet with USDC and no ETH pays by one signature, relayed by the service and confirmed: in English, French and Arabic, axe clean on the offer', async ({
    page,
  }) => {
    await injectSigningWallet(page, customer);
    const usdc = servers.contracts!.tokens.USDC as string;
    for (const [locale, words] of Object.entries(WORDS)) {
      const before = await held(usdc, customer.address);
      const dialog = await payIn(page, 'USDC', locale);
      const sign = dialog.getByRole('button', { name: words.sign });
      await expect(sign).toBeVisible();
      // The transfer stays beside it.
      await expect(dialog.locator('[data-pay-wallet]')).toBeVisible();
      await expectNoViolations(page, `payment with a signature, ${locale}`);
      await sign.click();
      await expect(dialog.getByRole('heading', { name: words.received })).toBeVisible({ timeout: 30_000 });
      if (locale === 'en') await expect(dialog.locator('[data-paid]')).toHaveText('24.745 USDC');
      expect(before - (await held(usdc, customer.address))).toBe(24_745_000n);
      const events = await shopEvents(page);
      await expect.poll(() => servers.shop.orders.get(events[0]!.detail.reference as string)?.timesMarkedPaid, { timeout: 10_000 }).toBe(1);
    }
    const calls = await page.evaluate(() => (window as unknown as { walletCalls: string[] }).walletCalls);
    expect(calls).toContain('eth_signTypedData_v4');
    expect(calls).not.toContain('eth_sendTransaction');
    // The customer paid no gas: still no ETH.
    expect(await node('eth_getBalance', [customer.address, 'latest'])).toBe('0x0');
  });

  test('no signature is offered for USDT (it signs nothing), nor to a wallet holding only USDT for a USDC payment', async ({ page }) => {
    await injectSigningWallet(page, customer);
    let dialog = await payIn(page, 'USDT');
    await expect(dialog.locator('[data-pay-wallet]')).toBeVisible();
    // The first test shows the offer within a moment of the payment screen: give it that moment.
    await page.waitForTimeout(1000);
    await expect(dialog.locator('[data-sign]')).toHaveCount(0);
    await page.close();
    const other = await page.context().newPage();
    await injectSigningWallet(other, usdtOnly);
    dialog = await payIn(other, 'USDC');
    await expect(dialog.locator('[data-pay-wallet]')).toBeVisible();
    // Asked (its balance read), and not offered.
    await expect.poll(() => other.evaluate(() => (window as unknown as { walletCalls: string[] }).walletCalls)).toContain('eth_call');
    await other.waitForTimeout(1000);
    await expect(dialog.locator('[data-sign]')).toHaveCount(0);
  });

  test('a signature the service refuses (not signed by the payer) says so, and the transfer stays, focused', async ({ page }) => {
    await injectSigningWallet(page, customer, usdtOnly);
    const usdc = servers.contracts!.tokens.USDC as string;
    const before = await held(usdc, customer.address);
    const dialog = await payIn(page, 'USDC');
    const relayed = page.waitForResponse((r) => r.url().includes('/api/v1/transaction/relay/'));
    await dialog.getByRole('button', { name: WORDS.en.sign }).click();
    const answer = await relayed;
    expect(answer.status()).toBe(400);
    expect((await answer.json()).errors).toEqual([{ field: 'signature', message: expect.any(String) }]);
    await expect(dialog.locator('[data-wallet-note]')).toHaveText('Paying with one signature is not possible for this payment. Pay with a transfer instead.');
    await expect(dialog.locator('[data-sign]')).toHaveCount(0);
    await expect(dialog.getByRole('button', { name: 'Pay with Test Wallet' })).toBeFocused();
    await expect(dialog.locator('svg[role=img]')).toBeVisible();
    expect(await held(usdc, customer.address)).toBe(before);
  });
});

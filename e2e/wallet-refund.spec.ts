// Issue 35 on `wallet` settlement, from the dashboard's screens on a real dev chain: the service
// holds none of the money, so a refund is one transfer from the merchant's own wallet. The
// merchant refunds a paid payment from its page; its line offers "Send ... from my wallet"; the
// panel names the transfer, its EIP-681 link and QR code, and a browser wallet the page found
// (an EIP-6963 test wallet whose transactions a dev account signs); one click sends it, and the
// watcher finds it on chain: the refund is confirmed and the customer holds the money. axe is
// clean on the panel, light and dark. Needs `npm run build`.
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type Hex } from 'viem';
import { startService } from '../server/service/app.ts';
import { cheapPasswords } from '../server/testing/passwords.ts';
import { startDevChain, TEST_BLOCK_SECONDS } from '../devchain/anvil.ts';
import { deployDevContracts, devAccount, devNetwork } from '../devchain/deploy.ts';
import { DEV_CHAIN_POWERS } from '../devchain/sandbox.ts';
import { axeViolations } from './support/axe.ts';
import { expect, test } from './support/fixtures.ts';

const ADMIN = 'op_wallet_refund_e2e_token_0123456789abcdef012345';
const bearer = (key: string) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json' });

test("on wallet settlement, a refund sent from the merchant's browser wallet: found on chain, confirmed, the customer paid", async ({ page }) => {
  test.setTimeout(150_000);
  const chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  const contracts = await deployDevContracts(chain, 3, '1000000');
  const money = await startService({
    adminToken: ADMIN,
    ...cheapPasswords,
    networks: { test: devNetwork(chain.url, contracts, 1) },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 100,
    sweepIntervalMs: 300,
    jobIntervalMs: 200,
  });
  try {
    const merchantWallet = devAccount(6);
    const customer = devAccount(7).address;
    const usdt = contracts.tokens.USDT as Address;
    const node = createPublicClient({ transport: http(chain.url) });
    const held = (who: Address) => node.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

    const made = (
      await (
        await fetch(`${money.url}/operator/v1/merchants`, {
          method: 'POST',
          headers: bearer(ADMIN),
          body: JSON.stringify({ name: 'Kiln Cups', email: 'owner@kiln-cups.example' }),
        })
      ).json()
    ).data as { signInUrl: string; keys: { test: { secretKey: string } } };
    const key = made.keys.test.secretKey;
    expect(
      (
        await fetch(`${money.url}/api/v1/payout_address`, {
          method: 'PUT',
          headers: bearer(key),
          body: JSON.stringify({ chain_id: chain.chainId, address: merchantWallet.address }),
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await fetch(`${money.url}/api/v1/transaction/initialize`, {
          method: 'POST',
          headers: bearer(key),
          body: JSON.stringify({ reference: 'kiln-1', coin: 'USDT', currency: 'USD', amount: 10, customer_email: 'ada@example.com' }),
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await fetch(`${money.url}/api/v1/sandbox/deposit`, {
          method: 'POST',
          headers: bearer(key),
          body: JSON.stringify({ reference: 'kiln-1', kind: 'exact' }),
        })
      ).status,
    ).toBe(200);
    // Settled to the merchant's wallet: the sweep brings the payment there.
    await expect.poll(() => held(merchantWallet.address), { timeout: 60_000 }).toBeGreaterThan(0n);

    // The page's wallet: it announces itself (EIP-6963); the dev account signs what it sends, the dev node answers the rest.
    const signer = createWalletClient({ account: merchantWallet, transport: http(chain.url) });
    const sent: Hex[] = [];
    await page.exposeFunction('testWallet', async (method: string, params: unknown[]) => {
      if (method === 'eth_requestAccounts' || method === 'eth_accounts') return [merchantWallet.address];
      if (method === 'wallet_switchEthereumChain') return null;
      if (method === 'eth_sendTransaction') {
        const [tx] = params as Array<{ to: Address; data: Hex }>;
        const hash = await signer.sendTransaction({ to: tx!.to, data: tx!.data, chain: null });
        sent.push(hash);
        return hash;
      }
      return node.request({ method: method as 'eth_chainId', params: params as never });
    });
    await page.addInitScript(() => {
      const provider = {
        request: ({ method, params }: { method: string; params?: unknown[] }) =>
          (window as unknown as { testWallet: (m: string, p: unknown[]) => Promise<unknown> }).testWallet(method, params ?? []),
      };
      const announce = () =>
        window.dispatchEvent(
          new CustomEvent('eip6963:announceProvider', {
            detail: Object.freeze({ info: { uuid: 'test', name: 'Test Wallet', icon: 'data:image/svg+xml,<svg/>', rdns: 'test.wallet' }, provider }),
          }),
        );
      window.addEventListener('eip6963:requestProvider', announce);
    });

    await page.goto(made.signInUrl);
    await page.getByLabel('New password').fill('a long enough password');
    await page.getByLabel('The same password again').fill('a long enough password');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { name: 'Home' })).toBeVisible();
    await page.goto(`${money.url}/dashboard/payments/kiln-1`);
    await page.getByLabel('Reason', { exact: true }).fill('cracked in the post');
    await page.getByLabel('Wallet address', { exact: true }).fill(customer);
    await page.getByRole('button', { name: 'Refund', exact: true }).click();
    await expect(page.getByRole('status').filter({ hasText: /^Refund of 10 USDT ready: send it from your wallet, from its line below\.$/ })).toBeVisible();

    const before = await held(customer);
    await page.getByRole('button', { name: /^Send refund \w+ from my wallet$/ }).click();
    const panel = page.getByRole('region', { name: 'Send 10 USDT from your wallet' });
    await expect(panel).toContainText(`To ${customer} on`);
    // The link is the refund's one transfer: 10 USDT (18 decimals on the dev chain) to the customer, on this chain's USDT.
    const units = 10n * 10n ** BigInt(await node.readContract({ address: usdt, abi: erc20Abi, functionName: 'decimals' }));
    await expect(panel.getByRole('link', { name: 'Open in a wallet app' })).toHaveAttribute(
      'href',
      new RegExp(`^ethereum:${usdt}@${chain.chainId}/transfer\\?address=${customer}&uint256=${units}$`, 'i'),
    );
    await expect(panel.getByRole('img', { name: 'QR code of the refund\u2019s transfer' })).toBeVisible();
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      const violations = await axeViolations(page);
      expect(violations.flatMap((v) => v.nodes.map((n) => `${scheme}: ${v.id} at ${JSON.stringify(n.target)}: ${n.failureSummary}`))).toEqual([]);
    }

    await panel.getByRole('button', { name: 'Pay with Test Wallet' }).click();
    await expect(panel.getByRole('status')).toHaveText(
      /^Sent from Test Wallet: transaction 0x[0-9a-f]{64}\. The refund is confirmed once the network has it\.$/,
    );
    expect(sent).toHaveLength(1);
    // The watcher finds the transfer; the panel follows the refund and its line says so.
    await expect(page.getByRole('region', { name: 'Refunds' }).getByRole('row').nth(1).getByRole('cell')).toHaveText([/./, '10 USDT', customer, 'Confirmed'], {
      timeout: 60_000,
    });
    expect((await held(customer)) - before).toBe(units);
    const [refund] = (await (await fetch(`${money.url}/api/v1/refunds?reference=kiln-1`, { headers: bearer(key) })).json()).data as Array<{
      status: string;
      tx_hash: string;
    }>;
    expect(refund).toMatchObject({ status: 'confirmed', tx_hash: sent[0] });
  } finally {
    await money.close();
    await chain.stop();
  }
});

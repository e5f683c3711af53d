// Issue 35 on the dev chain, wallet settlement: the service holds none of the money, so the
// merchant's own wallet sends the refund. The answer carries the one transfer (EIP-681 URI, QR);
// the watcher finds exactly that transfer and the refund goes sent, then confirmed, with nothing
// journaled; or the merchant names its transaction, checked on chain first. The attacks: one
// transaction offered for two refunds, a transfer of another token, to another address, too
// small, a reverted one, another merchant's refund, a test key naming a live refund. Exceptions
// on wallet settlement: an overpaid and a late payment (their money swept to the merchant's
// payout address) need attention with the amount owed back; the excess sent back is a transfer
// from the merchant's own wallet, found on chain and confirmed; the late money accepted. The
// rest of a paid payment, late money and USDC sent to a USDT payment sent back, each in its own
// coin from the merchant's wallet, confirmed on chain. An
// excess sent back by claim link: canceled first (the case opens again), then sent back again,
// the customer claims an address over HTTP as the claim page does, the merchant's wallet sends
// exactly the transfer the refund names, found on chain: confirmed, the case resolved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, getAddress, http, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { paymentUriOfUnits } from '../../../contract/payment-uri.ts';
import { formatUnits } from '../../../contract/money.ts';

/** Base units of the dev chain's USDT (18 decimals) as the API writes an amount. */
const coins = (units: bigint) => formatUnits(units, 18);
import { deployDevContracts, devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { caller, until } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const merchantWallet = devAccount(9);
/** A wallet the merchant sends refunds from (any of its wallets: the watcher takes a transfer from anyone). */
const merchantSender = devAccount(1);
const customer = devAccount(5).address;
const elsewhere = devAccount(6).address;
let chain: DevChain;
let contracts: DevContracts;
let api: Service;
let reader: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  contracts = await deployDevContracts(chain, 3);
  // Polled every 50 ms: viem's default for a chain with no block time is 4 s, so a receipt not
  // in the block that was current when asked (this chain mines every 0.25 s) waited 4 s.
  reader = createPublicClient({ chain: foundry, transport: http(chain.url), pollingInterval: 50 });
  api = await startService({
    demo: true,
    networks: { test: devNetwork(chain.url, contracts, 2) },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 100,
    sweepIntervalMs: 300,
    jobIntervalMs: 200,
  });
  expect((await call('PUT', '/api/v1/payout_address', { chain_id: 31337, address: merchantWallet.address }, secretKey)).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

const call = caller(() => api.url);
const server = (method: string, path: string, body?: unknown, key = secretKey) => call(method, path, body, key);
/** A transfer from `from`'s wallet (the merchant's sender unless told), mined: its hash. */
async function send(token: Address, to: Address, amount: bigint, from = merchantSender, gas?: bigint): Promise<Hex> {
  const wallet = createWalletClient({ account: from, chain: foundry, transport: http(chain.url) });
  const hash = await wallet.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount], ...(gas ? { gas } : {}) });
  await reader.waitForTransactionReceipt({ hash });
  return hash;
}
let n = 0;
/** A 10 USD USDT payment waiting for money (already expired when asked): its deposit address. */
async function awaiting(reference: string, expired = false): Promise<Address> {
  const created = await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 });
  expect(created.status).toBe(201);
  // Expired on the chain's clock too: money counts by its block's time, and this chain's blocks
  // (4 a second, dated in whole seconds) can lag the machine's clock; a late transfer was then
  // counted in time (CI's run of e3baabd: 'partial', not 'late').
  const head = Number((await reader.getBlock()).timestamp) * 1000;
  if (expired) await api.db.query(`UPDATE payments SET expires_ms = $2 WHERE reference = $1`, [reference, Math.min(Date.now(), head) - 1000]);
  return created.body.data.address;
}
async function paidToWallet() {
  const reference = `wr-${++n}`;
  expect((await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 })).status).toBe(201);
  await call('POST', '/api/v1/sandbox/deposit', { reference, kind: 'exact' });
  const detail = await until(
    `${reference} paid`,
    async () => {
      const d = (await server('GET', `/api/v1/payments/${reference}`)).body.data;
      return Number(d.payment.amountPaidExact) > 0 ? d : false;
    },
    30_000,
  );
  return { reference, arrived: BigInt(detail.payment.amountPaidExact.replace('.', '').padEnd(detail.payment.amountPaidExact.split('.')[0].length + 18, '0')) };
}
const told = async (id: string) =>
  (await api.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'REFUND_UPDATED' ORDER BY seq`))
    .map((e) => JSON.parse(e.body).data)
    .filter((d: { id: string }) => d.id === id)
    .map((d: { status: string }) => d.status);
const settled = (id: string) =>
  until(
    `refund ${id} confirmed`,
    async () => {
      const now = (await server('GET', `/api/v1/refunds/${id}`)).body.data;
      return now.status === 'confirmed' ? now : false;
    },
    60_000,
  );

describe('refunds of wallet-settled payments on the dev chain', { timeout: 120_000 }, () => {
  it("exceptions: an overpaid and a late payment need attention with the amount owed back; the excess goes back from the merchant's wallet, confirmed on chain; the late money accepted; nothing journaled", async () => {
    // The merchant's entries (the treasury's own gas funding is journaled with no merchant).
    const journaled = async () =>
      (await api.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM journal_entries WHERE merchant_id = $1`, [DEMO_MERCHANT.id]))[0]!.n;
    const entries = await journaled();
    const usdt = contracts.tokens.USDT;
    const atPayout = await reader.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [merchantWallet.address] });
    // The customer (not the merchant) pays: 12 USDT to a 10 USD payment, 10 USDT to one already expired.
    const customerPays = devAccount(2);
    const made: Record<string, Address> = { 'wx-over': await awaiting('wx-over'), 'wx-late': await awaiting('wx-late', true) };
    await send(usdt, made['wx-over']!, 12n * 10n ** 18n, customerPays);
    await send(usdt, made['wx-late']!, 10n * 10n ** 18n, customerPays);
    const needing = async () =>
      (
        (await server('GET', '/api/v1/payments?needs_attention=true&limit=100')).body.data as Array<{
          reference: string;
          attention: unknown;
          overpaid: string | null;
          actualAmountExact: string;
        }>
      ).filter((p) => p.reference.startsWith('wx-'));
    const listed = await until(
      'both need attention',
      async () => {
        const l = await needing();
        return l.length === 2 ? Object.fromEntries(l.map((p) => [p.reference, p])) : false;
      },
      40_000,
    );
    const excess =
      12n * 10n ** 18n -
      BigInt(listed['wx-over']!.actualAmountExact.replace('.', '').padEnd(listed['wx-over']!.actualAmountExact.split('.')[0]!.length + 18, '0'));
    expect(excess).toBeGreaterThan(0n);
    expect(listed['wx-over']!.attention).toEqual({ reason: 'overpaid', amount: listed['wx-over']!.overpaid, coin: 'USDT', chain_id: 31337 });
    expect(listed['wx-late']!.attention).toEqual({ reason: 'late', amount: '10', coin: 'USDT', chain_id: 31337 });
    // The service holds none of it: both swept to the merchant's payout address.
    await until(
      'swept to the payout address',
      async () =>
        (await reader.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [merchantWallet.address] })) ===
        atPayout + 22n * 10n ** 18n,
      40_000,
    );

    // The excess sent back: a refund the merchant's own wallet pays (the transfer named), found on chain.
    const asked = await server('POST', '/api/v1/payments/wx-over/send_back', { reason: 'paid too much', address: customer });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    expect(asked.body.data).toMatchObject({
      status: 'ready',
      settlement: 'wallet',
      amount: coins(excess),
      transfer: { to: getAddress(customer), amount: coins(excess), amount_base_units: String(excess), chain_id: 31337 },
    });
    expect((await server('POST', '/api/v1/payments/wx-over/send_back', { reason: 'again', address: customer })).body.code).toBe('nothing_to_resolve');
    const before = await reader.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [customer] });
    await send(usdt, customer, excess, merchantWallet);
    expect((await settled(asked.body.data.id)).status).toBe('confirmed');
    expect(await reader.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [customer] })).toBe(before + excess);
    expect(await told(asked.body.data.id)).toEqual(['ready', 'sent', 'confirmed']);

    // The late money accepted: counted toward its payment, told as its success; no money moves.
    const accepted = await server('POST', '/api/v1/payments/wx-late/accept');
    expect(
      [accepted.status, accepted.body.data?.status, accepted.body.data?.amountPaidExact, accepted.body.data?.attention],
      JSON.stringify(accepted.body),
    ).toEqual([200, 'confirmed', '10', null]);
    expect(await needing()).toEqual([]);
    expect(await journaled(), 'the service held none of it: nothing journaled').toBe(entries);
  });

  it("the answer names the one transfer (URI, QR); the watcher finds it sent from the merchant's wallet: sent, then confirmed; nothing journaled", async () => {
    const p = await paidToWallet();
    const started = Date.now();
    const asked = await server('POST', '/api/v1/refunds', { reference: p.reference, amount: coins(p.arrived / 2n), reason: 'half back', address: customer });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const r = asked.body.data;
    const token = getAddress(contracts.tokens.USDT);
    expect(r).toMatchObject({ status: 'ready', settlement: 'wallet', tx_hash: null });
    expect(r.transfer).toEqual({
      uri: paymentUriOfUnits({ contractAddress: token, chainId: 31337 }, getAddress(customer), p.arrived / 2n),
      token,
      chain_id: 31337,
      to: getAddress(customer),
      amount: coins(p.arrived / 2n),
      amount_base_units: String(p.arrived / 2n),
    });
    const qr = await server('GET', `/api/v1/refunds/${r.id}/qr`);
    expect([qr.status, qr.body.data.uri]).toEqual([200, r.transfer.uri]);
    // A transfer too small is not it; the exact one is, whoever looks.
    await send(contracts.tokens.USDT, customer, p.arrived / 2n - 1n);
    const hash = await send(contracts.tokens.USDT, customer, p.arrived / 2n);
    const done = await settled(r.id);
    console.log(`wallet refund: request to confirmed ${Date.now() - started} ms`);
    expect(done.tx_hash).toBe(hash.toLowerCase());
    expect(await told(r.id)).toEqual(['ready', 'sent', 'confirmed']);
    // The service paid nothing: no journal entry, no treasury withdrawal.
    expect(await api.db.query(`SELECT id FROM journal_entries WHERE ref = $1`, [r.id])).toEqual([]);
    expect(await api.db.query(`SELECT id FROM withdrawals WHERE id = $1`, [r.id])).toEqual([]);
    // The same transaction for a second refund: refused, whatever else it is.
    const second = await server('POST', '/api/v1/refunds', { reference: p.reference, amount: coins(p.arrived / 4n), reason: 'a quarter', address: customer });
    const reused = await server('POST', `/api/v1/refunds/${second.body.data.id}/transaction`, { tx_hash: hash });
    expect([reused.status, reused.body.code, reused.body.errors[0].field]).toEqual([409, 'refund_transaction_used', 'tx_hash']);
  });

  it("the merchant names its transaction: checked on chain first (token, address, amount, succeeded, not another refund's, its own refund of its own mode)", async () => {
    const p = await paidToWallet();
    const amount = p.arrived / 5n;
    const asked = await server('POST', '/api/v1/refunds', { reference: p.reference, amount: coins(amount), reason: 'a fifth', address: customer });
    const id = asked.body.data.id as string;
    const mark = (tx_hash: string, key = secretKey) => server('POST', `/api/v1/refunds/${id}/transaction`, { tx_hash }, key);
    const refusals: Array<[Hex, string]> = [
      [await send(contracts.tokens.USDC, customer, 10n ** 6n), 'token'],
      [await send(contracts.tokens.USDT, elsewhere, amount), 'address'],
      [await send(contracts.tokens.USDT, customer, amount - 1n), 'less'],
      // From a wallet holding no USDT, gas given so the node signs it: mined, reverted.
      [await send(contracts.tokens.USDT, customer, amount, devAccount(8), 100_000n), 'reverted'],
      [('0x' + 'ab'.repeat(32)) as Hex, 'mined'],
    ];
    for (const [hash, words] of refusals) {
      const refused = await mark(hash);
      expect([refused.status, refused.body.errors?.[0].field, refused.body.message], words).toEqual([400, 'tx_hash', expect.stringContaining(words)]);
    }
    expect((await server('GET', `/api/v1/refunds/${id}`)).body.data.status).toBe('ready');
    // Another merchant's refund, and a test key naming a live refund: not found.
    const other = await api.parts.merchants.create({ businessName: 'Other', businessEmail: 'other-wr@example.com', businessLogo: '' }, Date.now());
    const good = await send(contracts.tokens.USDT, customer, amount + 7n);
    expect((await mark(good, other.keys.test.secretKey)).status).toBe(404);
    await api.db.query(`UPDATE refunds SET mode = 'live' WHERE id = $1`, [id]);
    expect((await mark(good)).status).toBe(404);
    await api.db.query(`UPDATE refunds SET mode = 'test' WHERE id = $1`, [id]);
    // Its own, a transfer of at least the amount: sent, then confirmed once counted.
    const marked = await mark(good);
    expect([marked.status, marked.body.data.status, marked.body.data.tx_hash]).toEqual([200, 'sent', good.toLowerCase()]);
    expect((await mark(good)).body.data.tx_hash).toBe(good.toLowerCase());
    await settled(id);
    expect(await told(id)).toEqual(['ready', 'sent', 'confirmed']);
  });

  it('a claim link on wallet settlement: no transfer until the customer names the address; canceled with nothing to return', async () => {
    const p = await paidToWallet();
    const made = await server('POST', '/api/v1/refunds', { reference: p.reference, amount: '0.000000000000001', reason: 'where to?' });
    expect(made.body.data).toMatchObject({ status: 'waiting_for_address', transfer: null });
    expect((await server('GET', `/api/v1/refunds/${made.body.data.id}/qr`)).body.code).toBe('refund_state');
    const token = new URL(made.body.data.claim_url).hash.slice(1);
    const claimed = await fetch(api.url + '/refund/claim', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token, address: customer, confirm: true }),
    });
    expect(((await claimed.json()) as any).status).toBe('ready');
    const now = (await server('GET', `/api/v1/refunds/${made.body.data.id}`)).body.data;
    expect(now.transfer.to).toBe(getAddress(customer));
    expect(await api.db.query(`SELECT id FROM withdrawals WHERE id = $1`, [now.id])).toEqual([]);
    expect((await server('POST', `/api/v1/refunds/${now.id}/cancel`)).body.data.status).toBe('canceled');
    expect(await api.db.query(`SELECT id FROM journal_entries WHERE ref = $1`, [now.id])).toEqual([]);
  });

  it("the rest of a paid payment, late money and another coin sent back, each from the merchant's wallet in its own coin, confirmed on chain; nothing journaled", async () => {
    const entries = async () =>
      (await api.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM journal_entries WHERE merchant_id = $1`, [DEMO_MERCHANT.id]))[0]!.n;
    const before = await entries();
    const balanceOf = (token: Address) => reader.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [customer] });
    const customerPays = devAccount(2);
    // A full refund: 'rest' is all that arrived; the payment then shows refunded.
    const p = await paidToWallet();
    const full = await server('POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'all back', address: customer });
    expect([full.status, full.body.data?.amount, full.body.data?.transfer?.amount_base_units], JSON.stringify(full.body)).toEqual([
      201,
      coins(p.arrived),
      String(p.arrived),
    ]);
    // Late money and USDC sent to a USDT payment: each its case, sent back in the coin it came in.
    const made: Record<string, Address> = { 'wx-late-back': await awaiting('wx-late-back', true), 'wx-coin-back': await awaiting('wx-coin-back') };
    await send(contracts.tokens.USDT, made['wx-late-back']!, 3n * 10n ** 18n, customerPays);
    await send(contracts.tokens.USDC, made['wx-coin-back']!, 4n * 10n ** 6n, customerPays);
    const cases = await until(
      'both need attention',
      async () => {
        const l = (
          (await server('GET', '/api/v1/payments?needs_attention=true&limit=100')).body.data as Array<{ reference: string; attention: unknown }>
        ).filter((x) => x.reference.endsWith('-back'));
        return l.length === 2 ? Object.fromEntries(l.map((x) => [x.reference, x.attention])) : false;
      },
      40_000,
    );
    expect(cases).toEqual({
      'wx-late-back': { reason: 'late', amount: '3', coin: 'USDT', chain_id: 31337 },
      'wx-coin-back': { reason: 'wrong_coin', amount: '4', coin: 'USDC', chain_id: 31337 },
    });
    const late = await server('POST', '/api/v1/payments/wx-late-back/send_back', { reason: 'too late', address: customer });
    const coin = await server('POST', '/api/v1/payments/wx-coin-back/send_back', { reason: 'wrong coin', address: customer });
    expect(
      [late.status, late.body.data?.transfer?.amount_base_units, coin.status, coin.body.data?.coin, coin.body.data?.transfer?.token],
      JSON.stringify([late.body, coin.body]),
    ).toEqual([201, String(3n * 10n ** 18n), 201, 'USDC', getAddress(contracts.tokens.USDC)]);
    // The merchant's wallet sends each named transfer; the customer gets exactly each.
    const usdt = await balanceOf(contracts.tokens.USDT);
    const usdc = await balanceOf(contracts.tokens.USDC);
    await send(contracts.tokens.USDT, customer, p.arrived);
    await send(contracts.tokens.USDT, customer, 3n * 10n ** 18n);
    await send(contracts.tokens.USDC, customer, 4n * 10n ** 6n);
    for (const r of [full, late, coin]) {
      expect((await settled(r.body.data.id)).status).toBe('confirmed');
      expect(await told(r.body.data.id)).toEqual(['ready', 'sent', 'confirmed']);
    }
    expect([await balanceOf(contracts.tokens.USDT), await balanceOf(contracts.tokens.USDC)]).toEqual([
      usdt + p.arrived + 3n * 10n ** 18n,
      usdc + 4n * 10n ** 6n,
    ]);
    expect((await server('GET', `/api/v1/payments/${p.reference}`)).body.data.refunds).toMatchObject({ status: 'refunded', amount: coins(p.arrived) });
    expect(await entries(), 'the service held none of it: nothing journaled').toBe(before);
  });

  it("an excess sent back by claim link: canceled, the case opens again; sent back again, the customer claims an address over HTTP, the merchant's wallet sends the transfer named, confirmed, resolved", async () => {
    const usdt = contracts.tokens.USDT;
    const created = await call('POST', '/api/v1/transaction/initialize', { reference: 'wy-over', coin: 'USDT', currency: 'USD', amount: 10 });
    expect(created.status).toBe(201);
    await send(usdt, created.body.data.address, 13n * 10n ** 18n, devAccount(2));
    const payment = async () => (await server('GET', '/api/v1/payments/wy-over')).body.data.payment;
    const attention = await until('wy-over needs attention', async () => (await payment()).attention ?? false, 40_000);
    expect(attention).toMatchObject({ reason: 'overpaid', coin: 'USDT', chain_id: 31337 });
    const owed = BigInt(attention.amount.replace('.', '').padEnd(attention.amount.split('.')[0].length + 18, '0'));
    const needing = async () =>
      (await server('GET', '/api/v1/payments?needs_attention=true&q=wy-over')).body.data.map((p: { attention: unknown }) => p.attention);

    // A claim link canceled by the merchant (on wallet settlement nothing was reserved): the case open again, the same amount.
    const first = await server('POST', '/api/v1/payments/wy-over/send_back', { reason: 'paid too much' });
    expect(first.body.data).toMatchObject({
      status: 'waiting_for_address',
      settlement: 'wallet',
      transfer: null,
      amount: attention.amount,
      amount_base_units: String(owed),
    });
    expect(await needing()).toEqual([]);
    expect((await server('POST', `/api/v1/refunds/${first.body.data.id}/cancel`)).body.data.status).toBe('canceled');
    expect(await needing()).toEqual([attention]);

    // Sent back again by claim link; the customer opens it and names an address, as the claim page does.
    const asked = await server('POST', '/api/v1/payments/wy-over/send_back', { reason: 'paid too much' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    const id = asked.body.data.id as string;
    expect(await needing()).toEqual([]);
    const token = new URL(asked.body.data.claim_url).hash.slice(1);
    const customerPost = async (path: string, body: unknown) => {
      const r = await fetch(api.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: r.status, body: (await r.json()) as any };
    };
    expect((await fetch(api.url + '/refund')).status).toBe(200);
    const details = await customerPost('/refund/details', { token });
    expect([details.status, details.body]).toEqual([200, expect.objectContaining({ coin: 'USDT', amount: attention.amount, chain_id: 31337 })]);
    const checked = await customerPost('/refund/claim', { token, address: customer.toLowerCase() });
    expect([checked.status, checked.body.address]).toEqual([200, getAddress(customer)]);
    const claimed = await customerPost('/refund/claim', { token, address: customer, confirm: true });
    expect([claimed.status, claimed.body.status]).toEqual([200, 'ready']);
    expect((await customerPost('/refund/claim', { token, address: elsewhere, confirm: true })).body.code).toBe('refund_link_used');

    // The merchant's wallet sends exactly the transfer the refund names; the service finds it on chain.
    const transfer = (await server('GET', `/api/v1/refunds/${id}`)).body.data.transfer;
    expect(transfer).toMatchObject({
      to: getAddress(customer),
      amount: attention.amount,
      amount_base_units: String(owed),
      token: getAddress(usdt),
      chain_id: 31337,
    });
    const before = await reader.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [customer] });
    await send(transfer.token, transfer.to, BigInt(transfer.amount_base_units), merchantWallet);
    expect((await settled(id)).status).toBe('confirmed');
    expect(await reader.readContract({ address: usdt, abi: erc20Abi, functionName: 'balanceOf', args: [customer] })).toBe(before + owed);
    expect(await told(id)).toEqual(['waiting_for_address', 'ready', 'sent', 'confirmed']);
    expect([(await payment()).attention, await needing()]).toEqual([null, []]);
    expect(await api.db.query(`SELECT id FROM journal_entries WHERE ref = $1`, [id])).toEqual([]);
  });
});

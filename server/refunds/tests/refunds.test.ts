// Issue 35 on the dev chain: refunds of balance-settled payments sent by the treasury. A full
// refund, a partial one (then the rest), and an overpayment's excess, each ending confirmed on
// chain (its block with the network's confirmations) with the customer's wallet credited, the
// journal balanced per coin, and the treasury reconciled: its tokens on chain equal what the
// journal says it holds, its native coin the operator's funding less the gas journaled. The
// attacks: a refund to the treasury or to a deposit address, another merchant's payment. The
// amount as the API writes every amount: a refund of "5" of a 10 USD payment sends
// exactly 5 USDT (5×10^18 base units of the dev chain's 18-decimal USDT), and "10" after it is
// more than is left.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, zeroAddress, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { deployDevContracts, devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { caller, until } from '../../testing/chain.ts';
import { formatUnits, toUnits } from '../../../contract/money.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;
const customer = devAccount(5).address;
let chain: DevChain;
let contracts: DevContracts;
let api: Service;
let reader: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  contracts = await deployDevContracts(chain, 3);
  reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
  api = await startService({
    demo: true,
    networks: { test: devNetwork(chain.url, contracts, 2) },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 100,
    sweepIntervalMs: 300,
    jobIntervalMs: 200,
  });
}, 120_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

const call = caller(() => api.url);
const server = (method: string, path: string, body?: unknown, key = secretKey) => call(method, path, body, key);
/** The dev chain's USDT has 18 decimals: base units as the API writes an amount, and back. */
const coins = (units: bigint) => formatUnits(units, 18);
const unitsOf = (text: string) => toUnits(text, 18)!;
const usdt = (who: Address) => reader.readContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

/** After a step, with nothing of the treasury's in flight: the journal sums to zero per coin; the treasury holds on chain what the journal says. */
async function books(step: string) {
  await until(`${step}: the treasury idle`, async () => !(await api.parts.treasuryTxs.inFlight(31337)));
  for (const s of await api.parts.journal.journalSums()) expect(s.sum, `${step}: the journal of ${s.token} sums to zero`).toBe(0n);
  const held = await api.parts.journal.held(31337, contracts.tokens.USDT);
  expect(await usdt(treasury), `${step}: the treasury's USDT on chain = merchants + fees + payable`).toBe(held.merchants + held.fees + held.payable);
  const native = await until(`${step}: the treasury's funding journaled`, async () =>
    (await api.parts.journal.held(31337, zeroAddress)).gas > 0n ? api.parts.journal.held(31337, zeroAddress) : false,
  );
  expect(await reader.getBalance({ address: treasury }), `${step}: the treasury's native coin = funded − gas journaled`).toBe(native.gas);
}

/** A USDT payment of 10 USD paid as `kind` says, swept into the treasury and journaled: its reference, deposit address and what arrived (base units). */
let n = 0;
async function paidIntoBalance(kind: 'exact' | 'over') {
  const reference = `rf-${++n}`;
  const created = await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 });
  expect(created.status).toBe(201);
  await call('POST', '/api/v1/sandbox/deposit', { reference, kind });
  const address = (created.body.data.address as string).toLowerCase();
  await until(
    `${reference} swept and journaled`,
    async () => {
      const swept = (await api.parts.chain.transfers(31337)).find((t) => t.recipient === address)?.sweptHash;
      return swept && (await api.db.query(`SELECT 1 FROM journal_entries WHERE kind = 'deposit' AND memo LIKE $1`, [`payment ${reference},%`])).length > 0;
    },
    30_000,
  );
  const detail = (await server('GET', `/api/v1/payments/${reference}`)).body.data;
  const arrived = BigInt(detail.payment.amountPaidExact.replace('.', '').padEnd(detail.payment.amountPaidExact.split('.')[0].length + 18, '0'));
  const due = BigInt(detail.payment.actualAmountExact.replace('.', '').padEnd(detail.payment.actualAmountExact.split('.')[0].length + 18, '0'));
  return { reference, address: created.body.data.address as string, arrived, due };
}

const timings: number[] = [];
/** Asks for a refund and follows it to confirmed on chain: the customer's USDT up by its amount, each state an event. */
async function refundedOnChain(reference: string, amount: string, reason: string) {
  const before = await usdt(customer);
  const started = Date.now();
  const asked = await server('POST', '/api/v1/refunds', { reference, amount, reason, address: customer });
  expect(asked.status, JSON.stringify(asked.body)).toBe(201);
  expect(asked.body.data.status).toBe('ready');
  const id = asked.body.data.id as string;
  const done = await until(
    `refund ${id} confirmed`,
    async () => {
      const now = (await server('GET', `/api/v1/refunds/${id}`)).body.data;
      return now.status === 'confirmed' || now.status === 'failed' ? now : false;
    },
    60_000,
    100,
  );
  timings.push(Date.now() - started);
  expect(done.status).toBe('confirmed');
  const receipt = await reader.getTransactionReceipt({ hash: done.tx_hash });
  expect(receipt.status).toBe('success');
  expect(await usdt(customer)).toBe(before + unitsOf(done.amount));
  expect(done.amount_base_units).toBe(String(unitsOf(done.amount)));
  // Every state told, in order: ready, sent (with its transaction), confirmed.
  const told = await api.db.query<{ body: string }>(`SELECT body FROM events WHERE type = 'REFUND_UPDATED' ORDER BY seq`);
  const mine = told.map((e) => JSON.parse(e.body).data).filter((d: { id: string }) => d.id === id);
  expect(mine.map((d: { status: string }) => d.status)).toEqual(['ready', 'sent', 'confirmed']);
  expect(mine[1].tx_hash).toBe(done.tx_hash);
  // Its journal: reserved, then sent once counted; its gas journaled once.
  const entries = await api.db.query<{ kind: string }>(`SELECT kind FROM journal_entries WHERE ref = $1 ORDER BY id`, [id]);
  expect(entries.map((e) => e.kind)).toEqual(['withdrawal_reserved', 'withdrawal_sent']);
  const [gas] = await api.db.query<{ amount: string }>(
    `SELECT p.amount::text AS amount FROM journal_entries e JOIN postings p ON p.entry_id = e.id WHERE e.kind = 'gas' AND e.ref = $1 AND p.account = 'external:gas'`,
    [`31337/${done.tx_hash.toLowerCase()}`],
  );
  expect(BigInt(gas!.amount)).toBe(receipt.gasUsed * receipt.effectiveGasPrice);
  console.log(`refund ${reason}: ${done.amount} USDT, gas ${receipt.gasUsed} (${gas!.amount} wei), request to confirmed ${Date.now() - started} ms`);
  return done;
}

describe('refunds of balance-settled payments on the dev chain', { timeout: 120_000 }, () => {
  /** The overpaid payment, partly refunded (its excess): it still has money to give back, for the attacks. */
  let overpaid: Awaited<ReturnType<typeof paidIntoBalance>>;
  it('balance settlement', async () => {
    expect((await server('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
  });

  it('a full refund of a paid payment ends confirmed on chain; the payment shows refunded', async () => {
    const p = await paidIntoBalance('exact');
    const done = await refundedOnChain(p.reference, 'rest', 'full');
    expect(unitsOf(done.amount)).toBe(p.arrived);
    expect((await server('GET', `/api/v1/payments/${p.reference}`)).body.data.refunds.status).toBe('refunded');
    await books('a full refund');
  });

  it('a refund of "5" of a 10 USD payment paid in full sends exactly 5 USDT to the customer on chain; "10" after it is more than is left', async () => {
    const p = await paidIntoBalance('exact');
    // What a merchant reads first: verify says 10 paid (a JSON number; its exact text beside it).
    const verified = (await server('GET', `/api/v1/transaction/verify/${p.reference}`)).body.data;
    expect([verified.status, verified.amountPaid, verified.amountPaidExact, verified.coin]).toEqual(['confirmed', 10, '10', 'USDT']);
    expect(p.arrived).toBe(10n * 10n ** 18n);
    const done = await refundedOnChain(p.reference, '5', 'five of ten');
    expect([done.amount, done.amount_base_units]).toEqual(['5', '5000000000000000000']);
    // On chain: the treasury's one transfer to the customer carries exactly 5×10^18.
    const receipt = await reader.getTransactionReceipt({ hash: done.tx_hash });
    const sent = receipt.logs.filter((l) => l.address.toLowerCase() === contracts.tokens.USDT.toLowerCase());
    expect(sent).toHaveLength(1);
    expect(BigInt(sent[0]!.data)).toBe(5n * 10n ** 18n);
    const after = await server('POST', '/api/v1/refunds', { reference: p.reference, amount: '10', reason: 'all ten', address: customer });
    expect([after.status, after.body.code, after.body.errors[0].field]).toEqual([409, 'refund_exceeds_received', 'amount']);
    expect(after.body.message).toContain('10 USDT is more than payment');
    expect(after.body.errors[0].message).toBe('expected at most "5" (5 USDT)');
    expect((await server('GET', `/api/v1/payments/${p.reference}`)).body.data.refunds).toMatchObject({ status: 'partly_refunded', amount: '5' });
    await books('a refund of "5"');
  });

  it('a partial refund, then the rest: partly refunded, then refunded', async () => {
    const p = await paidIntoBalance('exact');
    await refundedOnChain(p.reference, coins(p.arrived / 4n), 'partial');
    const detail = (await server('GET', `/api/v1/payments/${p.reference}`)).body.data;
    expect(detail.refunds).toMatchObject({ status: 'partly_refunded', amount: coins(p.arrived / 4n) });
    expect(detail.timeline.filter((s: { eventType?: string }) => s.eventType === 'REFUND_UPDATED').length).toBe(3);
    await books('a partial refund');
    await refundedOnChain(p.reference, 'rest', 'the rest');
    expect((await server('GET', `/api/v1/payments/${p.reference}`)).body.data.refunds.status).toBe('refunded');
    await books('the rest refunded');
  });

  it("an overpayment's excess refunded: what arrived past what was due", async () => {
    const p = (overpaid = await paidIntoBalance('over'));
    expect(p.arrived).toBeGreaterThan(p.due);
    const done = await refundedOnChain(p.reference, coins(p.arrived - p.due), 'excess');
    expect(unitsOf(done.amount)).toBe(p.arrived - p.due);
    expect((await server('GET', `/api/v1/payments/${p.reference}`)).body.data.refunds.status).toBe('partly_refunded');
    await books("an overpayment's excess");
  });

  it('a claimed refund: the customer names the address on the link, the treasury sends it, confirmed on chain; counted once toward the daily limit', async () => {
    const p = await paidIntoBalance('exact');
    const spent = async () => (await server('GET', '/api/v1/withdrawals/limit')).body.data.spent as string;
    const before = await spent();
    const made = await server('POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'claimed' });
    expect(made.body.data.status).toBe('waiting_for_address');
    const asked = await spent();
    expect(Number(asked)).toBeGreaterThan(Number(before));
    const balanceBefore = await usdt(customer);
    const claim = await fetch(api.url + '/refund/claim', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: new URL(made.body.data.claim_url).hash.slice(1), address: customer, confirm: true }),
    });
    expect(((await claim.json()) as { status: string }).status).toBe('ready');
    // Counted once: what was counted when asked for is not counted again by its withdrawal.
    expect(await spent()).toBe(asked);
    const id = made.body.data.id as string;
    const done = await until(
      `claimed refund ${id} confirmed`,
      async () => {
        const now = (await server('GET', `/api/v1/refunds/${id}`)).body.data;
        return now.status === 'confirmed' || now.status === 'failed' ? now : false;
      },
      60_000,
      100,
    );
    expect(done.status).toBe('confirmed');
    expect((await reader.getTransactionReceipt({ hash: done.tx_hash })).status).toBe('success');
    expect(await usdt(customer)).toBe(balanceBefore + p.arrived);
    expect(await spent()).toBe(asked);
    const entries = await api.db.query<{ kind: string }>(`SELECT kind FROM journal_entries WHERE ref = $1 ORDER BY id`, [id]);
    expect(entries.map((e) => e.kind)).toEqual(['withdrawal_reserved', 'withdrawal_sent']);
    await books('a claimed refund');
  });

  it("attacks: to the treasury, to a deposit address, another merchant's payment: refused, nothing reserved or sent", async () => {
    const p = overpaid;
    const other = await api.parts.merchants.create({ businessName: 'Other', businessEmail: 'other@example.com', businessLogo: '' }, Date.now());
    const before = await api.db.query(`SELECT count(*)::int AS n FROM withdrawals`);
    for (const address of [treasury, treasury.toLowerCase(), p.address]) {
      const refused = await server('POST', '/api/v1/refunds', { reference: p.reference, amount: 'rest', reason: 'to us', address });
      expect([refused.status, refused.body.errors[0].field]).toEqual([400, 'address']);
    }
    const theirs = await server(
      'POST',
      '/api/v1/refunds',
      { reference: p.reference, amount: 'rest', reason: 'not mine', address: customer },
      other.keys.test.secretKey,
    );
    expect(theirs.status).toBe(404);
    expect(await api.db.query(`SELECT count(*)::int AS n FROM withdrawals`)).toEqual(before);
    await books('refused refunds');
    console.log(`refunds, request to confirmed (ms): ${timings.join(', ')}`);
  });
});

// The operator's fee on the dev chain, end to end: for each settlement (`wallet`,
// `balance`) and each bearer (`customer`, `merchant`), a payment paid exactly what its answer
// asked; the customer, the merchant and the operator each receive exactly what the answer said:
// on chain (wallet: the deposit contract splits the sweep between the merchant's payout address
// and the operator's fee address) or in the journal (balance: the treasury holds it all, the
// merchant's balance and the operator's fee account split it). Without a fee (the default) the
// deposit is the plain one, its address and sweep as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, parseUnits, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { DepositFactory } from '../../../contracts/artifacts.generated.ts';
import { deployDevContracts, devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { saltOf } from '../../chain/networks.ts';
import { caller, until } from '../../testing/chain.ts';
import { FEES, merchantAccount } from '../../balances/ledger-rules.ts';
import type { FeeBearer } from '../../domain/fees.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const ADMIN_TOKEN = 'op_' + 'f38'.repeat(14);
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;
const merchantWallet = devAccount(9).address;
const feeAddress = devAccount(6).address;
let chain: DevChain;
let contracts: DevContracts;
let api: Service;
let reader: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  contracts = await deployDevContracts(chain, 3, '1000000');
  reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
  api = await startService({
    demo: true,
    adminToken: ADMIN_TOKEN,
    networks: { test: { ...devNetwork(chain.url, contracts, 2), feeAddress } },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 100,
    sweepIntervalMs: 300,
    jobIntervalMs: 200,
    webhookRetryMs: 100,
  });
  expect((await call('PUT', '/api/v1/payout_address', { chain_id: 31337, address: merchantWallet }, secretKey)).status).toBe(200);
}, 120_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

const call = caller(() => api.url);
const verify = async (reference: string) => (await call('GET', `/api/v1/transaction/verify/${reference}`, undefined, secretKey)).body.data;
const onChain = (who: Address) => reader.readContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
const journal = (account: string) => api.parts.journal.sum(api.db, account, 31337, contracts.tokens.USDT);
const units = (text: string) => parseUnits(text, 18);
const available = merchantAccount(DEMO_MERCHANT.id, 'test', 'available');
type Answer = {
  address: Address;
  actualAmountExact: string;
  feeInCrypto: number;
  feeInCryptoExact: string;
  fee: { bps: number; bearer: FeeBearer; amount: string; merchantAmount: string };
};

/** The operator's fee on the demo merchant's test payments, set as the operator does (`merchant fee`, over HTTP). */
async function setFee(bps: number | null, bearer?: FeeBearer) {
  const set = await fetch(`${api.url}/operator/v1/merchants/${DEMO_MERCHANT.id}/fees`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ mode: 'test', bps, ...(bearer ? { bearer } : {}) }),
  });
  expect(set.status).toBe(200);
  return ((await set.json()) as { data: { bps: number; bearer: FeeBearer; default: boolean } }).data;
}

/** Pays `reference` exactly what initialize asked (the sandbox's dev payer) and waits until its deposit is swept. */
async function payExactly(reference: string, amount: number, settlement: 'wallet' | 'balance', fee: { bps: number; bearer: FeeBearer } | null) {
  expect((await call('PUT', '/api/v1/settlement', { settlement }, secretKey)).status).toBe(200);
  if (fee) await setFee(fee.bps, fee.bearer);
  else expect(await setFee(null)).toMatchObject({ bps: 0, default: true });
  const created = await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount }, secretKey);
  expect(created.status).toBe(201);
  const answer = (await verify(reference)) as Answer;
  // Initialize's answer to the merchant's server says the same as verify's.
  expect(created.body.data.fee).toEqual(answer.fee);
  await call('POST', '/api/v1/sandbox/deposit', { reference, kind: 'exact' }, secretKey);
  await until(`${reference} confirmed`, async () => (await verify(reference)).status === 'confirmed');
  const transfer = await until(
    `${reference} swept`,
    async () => (await api.parts.chain.transfers(31337)).find((t) => t.recipient === answer.address.toLowerCase() && t.sweptHash),
    40_000,
  );
  const sweep = await reader.getTransactionReceipt({ hash: transfer.sweptHash as Hex });
  return { answer, paid: BigInt(transfer.amount), sweepGas: sweep.gasUsed };
}

describe("the operator's fee, as the answer says, on the dev chain", { timeout: 120_000 }, () => {
  const gas: Record<string, bigint> = {};

  it('none by default: the customer pays the price, the merchant receives all of it, the deposit is the plain one', async () => {
    const [m0, f0] = [await onChain(merchantWallet), await onChain(feeAddress)];
    const { answer, paid, sweepGas } = await payExactly('fee-none', 10, 'wallet', null);
    expect(answer.address).toBe(
      await reader.readContract({
        address: contracts.factory,
        abi: DepositFactory.abi,
        functionName: 'addressOf',
        args: [merchantWallet, saltOf(DEMO_MERCHANT.id, 'test', 'fee-none')],
      }),
    );
    expect(answer.actualAmountExact).toBe('10');
    expect([answer.feeInCrypto, answer.feeInCryptoExact]).toEqual([0, '0']);
    expect(answer.fee).toEqual({ bps: 0, bearer: 'customer', amount: '0', merchantAmount: '10' });
    expect(paid).toBe(units('10'));
    await until('fee-none at the merchant', async () => (await onChain(merchantWallet)) > m0);
    expect(await onChain(merchantWallet)).toBe(m0 + units('10'));
    expect(await onChain(feeAddress)).toBe(f0);
    gas.plain = sweepGas;
  });

  it('wallet, the customer bears it: the customer pays the price plus 2.5%, the contract sends the fee to the fee address and the price to the merchant', async () => {
    const [m0, f0] = [await onChain(merchantWallet), await onChain(feeAddress)];
    const { answer, paid, sweepGas } = await payExactly('fee-wc', 10, 'wallet', { bps: 250, bearer: 'customer' });
    // The address is bound to the fee address and fraction, as the factory computes it.
    expect(answer.address).toBe(
      await reader.readContract({
        address: contracts.factory,
        abi: DepositFactory.abi,
        functionName: 'addressWithFee',
        args: [merchantWallet, feeAddress, 250, 10_250, saltOf(DEMO_MERCHANT.id, 'test', 'fee-wc')],
      }),
    );
    expect(answer.actualAmountExact).toBe('10.25');
    expect(answer.feeInCryptoExact).toBe('0.25');
    expect(answer.fee).toEqual({ bps: 250, bearer: 'customer', amount: '0.25', merchantAmount: '10' });
    expect(paid).toBe(units(answer.actualAmountExact));
    await until('fee-wc split on chain', async () => (await onChain(feeAddress)) > f0 && (await onChain(merchantWallet)) > m0);
    expect(await onChain(feeAddress)).toBe(f0 + units(answer.fee.amount));
    expect(await onChain(merchantWallet)).toBe(m0 + units(answer.fee.merchantAmount));
    gas.fee = sweepGas;
  });

  it('wallet, the merchant bears it: the customer pays the price, the merchant receives it less 2.5%', async () => {
    const [m0, f0] = [await onChain(merchantWallet), await onChain(feeAddress)];
    const { answer, paid } = await payExactly('fee-wm', 10.01, 'wallet', { bps: 250, bearer: 'merchant' });
    expect(answer.actualAmountExact).toBe('10.01');
    // 10.01 * 250 / 10000 = 0.25025, rounded down at the token's 18 decimals: exact here.
    expect(answer.fee).toEqual({ bps: 250, bearer: 'merchant', amount: '0.25025', merchantAmount: '9.75975' });
    // Nothing on top of the price for the customer: the checkout shows no fee.
    expect([answer.feeInCrypto, answer.feeInCryptoExact]).toEqual([0, '0']);
    expect(paid).toBe(units('10.01'));
    await until('fee-wm split on chain', async () => (await onChain(feeAddress)) > f0 && (await onChain(merchantWallet)) > m0);
    expect(await onChain(feeAddress)).toBe(f0 + units(answer.fee.amount));
    expect(await onChain(merchantWallet)).toBe(m0 + units(answer.fee.merchantAmount));
  });

  for (const bearer of ['customer', 'merchant'] as const) {
    it(`balance, the ${bearer} bears it: the treasury holds it all; the journal gives the merchant and the operator's fee account exactly the answer's shares`, async () => {
      const [t0, m0, f0, w0] = [await onChain(treasury), await journal(available), await journal(FEES), await onChain(feeAddress)];
      const { answer, paid } = await payExactly(`fee-b${bearer[0]}`, 33.33, 'balance', { bps: 175, bearer });
      // 33.33 (+ 1.75%: exactly 33.913275, the customer's) split at 175/10175 or 175/10000, rounded down at 18 decimals.
      const due = bearer === 'customer' ? '33.913275' : '33.33';
      const fee = bearer === 'customer' ? (units(due) * 175n) / 10_175n : (units(due) * 175n) / 10_000n;
      expect(answer.actualAmountExact).toBe(due);
      expect(answer.fee).toMatchObject({ bps: 175, bearer });
      expect(units(answer.fee.amount)).toBe(fee);
      expect(units(answer.fee.merchantAmount)).toBe(units(due) - fee);
      expect(paid).toBe(units(answer.actualAmountExact));
      await until('journaled', async () => (await journal(FEES)) > f0 && (await journal(available)) > m0);
      expect(await onChain(treasury)).toBe(t0 + paid);
      expect(await journal(FEES)).toBe(f0 + units(answer.fee.amount));
      expect(await journal(available)).toBe(m0 + units(answer.fee.merchantAmount));
      expect(await onChain(feeAddress)).toBe(w0); // nothing to the fee address on chain: the treasury holds the fee
      for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
    });
  }

  it('a sweep with a fee costs about one more transfer than one without', () => {
    console.log(`sweep gas (first sweep of one deposit): without a fee ${gas.plain}, with a fee ${gas.fee}`);
    expect(gas.fee! - gas.plain!).toBeGreaterThan(0n);
    expect(gas.fee! - gas.plain!).toBeLessThan(40_000n);
  });
});

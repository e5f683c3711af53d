// A random sequence of what moves a balance on the dev chain: payments swept to the
// treasury in USDC, USDT or DAI, swaps between them through the pools, withdrawals, bank
// payouts paid or rejected, and requests past the balance. After every step each coin's
// postings sum to zero, no balance is negative, and the treasury holds on chain exactly the
// merchants' balances plus the operator's fees plus what is owed to the payout partner (sent
// on to it once a payout is paid), and of the native coin the operator's funding less the gas
// every treasury transaction cost, as journaled.
// The seed is printed; SEED=<n> runs one sequence again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, formatUnits, http, parseUnits, zeroAddress, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { deployDevContracts, devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { caller, until } from '../../testing/chain.ts';
import { TEST_BANK_ACCOUNT } from '../../testing/api-calls.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;
let chain: DevChain;
let contracts: DevContracts;
let api: Service;
let reader: ReturnType<typeof createPublicClient>;

beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  contracts = await deployDevContracts(chain, 3, '1000000', { pools: true });
  reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
  api = await startService({
    demo: true,
    networks: { test: devNetwork(chain.url, contracts, 2) },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 100,
    sweepIntervalMs: 300,
    jobIntervalMs: 200,
    payoutCheckMs: 100,
  });
}, 120_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

const call = caller(() => api.url);
const server = (method: string, path: string, body?: unknown) => call(method, path, body, secretKey);
const available = async (coin: string) =>
  Number(((await server('GET', '/api/v1/balances')).body.data as Array<{ coin: string; available: string }>).find((l) => l.coin === coin)?.available ?? '0');

/** A small seeded generator (mulberry32): the same seed, the same sequence. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

async function books(step: string) {
  // A payout paid is sent on to the partner in the background (at once on a dev chain): the books are read once it is.
  await until(
    `${step}: the treasury idle`,
    async () =>
      (await api.parts.journal.held(31337, contracts.tokens.USDT)).payable === 0n &&
      !(await api.parts.treasuryTxs.inFlight(31337)) &&
      (await api.parts.partnerTransfers.pendingPartnerTransfers(31337)).length === 0,
  );
  for (const s of await api.parts.journal.journalSums()) expect(s.sum, `${step}: ${s.token} sums to zero`).toBe(0n);
  // The native coin: what the operator funded the treasury with, less every transaction's gas, as journaled.
  const native = await until(`${step}: the treasury's funding journaled`, async () =>
    (await api.parts.journal.held(31337, zeroAddress)).gas > 0n ? api.parts.journal.held(31337, zeroAddress) : false,
  );
  expect(await reader.getBalance({ address: treasury }), `${step}: the treasury's native coin`).toBe(native.gas);
  for (const symbol of ['USDC', 'USDT', 'DAI'] as const) {
    const token = contracts.tokens[symbol] as Address;
    const held = await api.parts.journal.held(31337, token);
    const onChain = await reader.readContract({ address: token, abi: erc20Abi, functionName: 'balanceOf', args: [treasury] });
    expect(onChain, `${step}: the treasury's ${symbol}`).toBe(held.merchants + held.fees + held.payable);
  }
  for (const line of (await server('GET', '/api/v1/balances')).body.data as Array<{ available: string; reserved: string }>) {
    expect(line.available.startsWith('-') || line.reserved.startsWith('-'), `${step}: no negative balance`).toBe(false);
  }
}

describe('a random sequence of balance movements', { timeout: 240_000 }, () => {
  it('keeps the journal balanced and equal to the treasury on chain after every step', async () => {
    const seed = Number(process.env.SEED ?? Date.now() % 100_000);
    console.log(`balances property: SEED=${seed}`);
    const next = random(seed);
    const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
    expect((await server('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
    const bank = (await server('POST', '/api/v1/bank/payouts', TEST_BANK_ACCOUNT)).body.data;
    const rejecting = (
      await server('POST', '/api/v1/bank/payouts', {
        bank_name: 'Access Bank',
        bank_code: '044',
        account_name: 'Harbour',
        account_number: '0690000000',
        currency: 'NGN',
        country: 'nigeria',
        state: 'Lagos',
      })
    ).body.data;
    const steps: string[] = [];
    // Eight movements; a draw that has nothing to move (no balance in that coin) draws again.
    for (let i = 0; steps.length < 8 && i < 40; i++) {
      const kind = steps.length < 2 ? 'pay' : pick(['pay', 'swap', 'swap', 'withdraw', 'payout', 'payout', 'overdraw'] as const);
      let step = '';
      if (kind === 'pay') {
        const coin = pick(['USDC', 'USDT', 'DAI'] as const);
        const amount = 5 + Math.floor(next() * 50);
        const reference = `p-${seed}-${i}`;
        await call('POST', '/api/v1/transaction/initialize', { reference, coin, currency: 'USD', amount });
        await call('POST', '/api/v1/sandbox/deposit', { reference, kind: pick(['exact', 'over', 'partial'] as const) });
        const address = (await call('GET', `/api/v1/transaction/verify/${reference}`)).body.data.address.toLowerCase();
        await until(`${reference} swept`, async () => (await api.parts.chain.transfers(31337)).find((t) => t.recipient === address)?.sweptHash, 30_000);
        await until(
          `${reference} journaled`,
          async () => (await api.parts.journal.entries(DEMO_MERCHANT.id)).some((e) => e.kind === 'deposit' && e.memo.includes(reference)),
          10_000,
        );
        step = `pay ${amount} USD in ${coin}`;
      } else if (kind === 'swap') {
        const from = pick(['USDC', 'DAI', 'USDT'] as const);
        const to = from === 'USDT' ? pick(['USDC', 'DAI'] as const) : 'USDT';
        const have = await available(from);
        const amount = Math.floor(have * next() * 100) / 100;
        if (amount < 0.01) continue;
        const quote = (await server('POST', '/api/v1/swaps/quote', { from, to, amount: String(amount) })).body.data;
        const started = await server('POST', '/api/v1/swaps', { quote_id: quote.id });
        expect(started.status).toBe(201);
        const done = await until(
          'swap ended',
          async () => {
            const s = (await server('GET', `/api/v1/swaps/${quote.id}`)).body.data;
            return s.status === 'completed' || s.status === 'failed' ? s : false;
          },
          30_000,
        );
        step = `swap ${amount} ${from} → ${to}: ${done.status}`;
      } else if (kind === 'withdraw') {
        const coin = pick(['USDC', 'USDT', 'DAI'] as const);
        const amount = Math.floor((await available(coin)) * next() * 100) / 100;
        if (amount < 1) continue; // the network's smallest withdrawal (one token by default)
        const started = await server('POST', '/api/v1/withdrawals', { coin, chain_id: 31337, address: devAccount(4).address, amount: String(amount) });
        expect(started.status).toBe(201);
        const done = await until(
          'withdrawn',
          async () => {
            const w = (await server('GET', `/api/v1/withdrawals/${started.body.data.id}`)).body.data;
            return w.status !== 'pending' ? w : false;
          },
          30_000,
        );
        step = `withdraw ${amount} ${coin}: ${done.status}`;
      } else if (kind === 'payout') {
        const amount = Math.floor((await available('USDT')) * next() * 100) / 100;
        if (amount < 0.01) continue;
        const to = pick([bank, bank, rejecting]);
        const started = await server('POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: to.id, coin: 'USDT', amount });
        if (amount < 1) {
          // Below the smallest bank payout (one token, as every send of the treasury): refused, nothing moves.
          expect(started.status).toBe(400);
          expect(started.body.errors[0].field).toBe('amount');
          step = `payout ${amount} USDT: refused, below the smallest`;
        } else {
          expect(started.status, JSON.stringify(started.body)).toBe(201);
          const done = await until('payout ended', async () => {
            const p = (await server('GET', `/api/v1/bank/payouts/withdrawals/${started.body.data.id}`)).body.data;
            return p.status === 'paid' || p.status === 'failed' ? p : false;
          });
          step = `payout ${amount} USDT: ${done.status}`;
        }
      } else {
        const coin = pick(['USDC', 'USDT', 'DAI'] as const);
        // One whole token more than the balance, added exactly (a float's sum can carry more places than USDC has: a 400, not the 409 meant).
        const decimals = coin === 'USDC' ? 6 : 18;
        const text =
          ((await server('GET', '/api/v1/balances')).body.data as Array<{ coin: string; available: string }>).find((l) => l.coin === coin)?.available ?? '0';
        const refused = await server('POST', '/api/v1/withdrawals', {
          coin,
          chain_id: 31337,
          address: devAccount(4).address,
          amount: formatUnits(parseUnits(text, decimals) + parseUnits('1', decimals), decimals),
        });
        expect(refused.status).toBe(409);
        step = `withdraw more ${coin} than the balance: refused`;
      }
      steps.push(step);
      await books(`step ${i} (${step})`);
    }
    console.log(steps.join('\n'));
    expect(steps.length).toBe(8);
  });
});

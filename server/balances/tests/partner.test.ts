// What is owed to the payout partner, sent on chain: two instances of the service on
// one PostgreSQL database, each running the treasury's sender, on a dev chain whose network
// batches (a 25 USDT minimum, or an hour's wait). A payout paid below the minimum stays owed;
// the next one that takes it past the minimum sends both in one transfer; a small remainder is
// sent once the clock passes the wait. Whichever instance sends, each batch is one transaction,
// the partner receives exactly what it was owed, and the journal says so. And a treasury
// transaction counts only once its block has the network's confirmations.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { freshPostgres } from '../../testing/databases.ts';
import { deployDevContracts, devAccount, devNetwork, PARTNER_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { caller, until } from '../../testing/chain.ts';
import { TEST_BANK_ACCOUNT } from '../../testing/api-calls.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const partner = devAccount(PARTNER_DEV_ACCOUNT).address;
let chain: DevChain;
let contracts: DevContracts;
let one: Service;
let two: Service;
let reader: ReturnType<typeof createPublicClient>;
let shift = 0;
const now = () => Date.now() + shift;

beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  contracts = await deployDevContracts(chain, 3, '1000000');
  reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
  const network = { ...devNetwork(chain.url, contracts, 2), partnerMinimum: '25', partnerMaxWaitMinutes: 60 };
  const databaseUrl = await freshPostgres();
  const options = {
    demo: true,
    databaseUrl,
    now,
    networks: { test: network },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 100,
    sweepIntervalMs: 300,
    jobIntervalMs: 150,
    payoutCheckMs: 100,
  };
  one = await startService({ ...options, instance: 'one' });
  two = await startService({ ...options, instance: 'two' });
}, 120_000);
afterAll(async () => {
  await one?.close();
  await two?.close();
  await chain?.stop();
});

const call = caller(() => one.url);
const server = (method: string, path: string, body?: unknown) => call(method, path, body, secretKey);
const usdt = () => contracts.tokens.USDT as Address;
const owed = async () => (await one.parts.journal.held(31337, usdt())).payable;
const atPartner = () => reader.readContract({ address: usdt(), abi: erc20Abi, functionName: 'balanceOf', args: [partner] });

async function paidPayout(amount: number, bankId: string) {
  const started = await server('POST', '/api/v1/bank/payouts/initiate', { payout_bank_id: bankId, coin: 'USDT', amount });
  expect(started.status).toBe(201);
  await until(
    `payout of ${amount} paid`,
    async () => (await server('GET', `/api/v1/bank/payouts/withdrawals/${started.body.data.id}`)).body.data.status === 'paid',
  );
}

describe('sending what is owed to the payout partner, in batches, from two instances', { timeout: 120_000 }, () => {
  it('holds a payout below the minimum, sends it with the next in one transfer, and a remainder after the wait', async () => {
    expect((await server('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
    await call('POST', '/api/v1/transaction/initialize', { reference: 'p-1', coin: 'USDT', currency: 'USD', amount: 100 });
    await call('POST', '/api/v1/sandbox/deposit', { reference: 'p-1', kind: 'exact' });
    await until('journaled', async () => (await one.parts.journal.entries(DEMO_MERCHANT.id)).some((e) => e.kind === 'deposit'), 30_000);
    const bank = (await server('POST', '/api/v1/bank/payouts', TEST_BANK_ACCOUNT)).body.data;

    await paidPayout(10, bank.id);
    expect(await owed()).toBe(parseUnits('10', 18));
    // Several ticks of both senders: 10 is under the minimum of 25, and nothing has waited an hour.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await one.parts.partnerTransfers.partnerTransfers()).toEqual([]);
    expect(await atPartner()).toBe(0n);

    await paidPayout(20, bank.id);
    const first = await until('the first batch sent', async () => (await one.parts.partnerTransfers.partnerTransfers()).find((t) => t.state === 'completed'));
    expect(first.amount).toBe(parseUnits('30', 18)); // both payouts, one transaction
    expect(await atPartner()).toBe(parseUnits('30', 18));
    expect(await owed()).toBe(0n);

    await paidPayout(5, bank.id);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await one.parts.partnerTransfers.partnerTransfers()).length).toBe(1);
    shift = 61 * 60_000; // an hour and a minute later
    await until(
      'the remainder sent after the wait',
      async () => (await one.parts.partnerTransfers.partnerTransfers()).filter((t) => t.state === 'completed').length === 2,
    );

    // Two instances, three payouts, two batches: two transfers, each mined once, and the partner holds exactly what it was owed.
    const transfers = await one.parts.partnerTransfers.partnerTransfers();
    expect(transfers.map((t) => [t.state, t.amount])).toEqual([
      ['completed', parseUnits('30', 18)],
      ['completed', parseUnits('5', 18)],
    ]);
    expect(new Set(transfers.map((t) => t.txHash)).size).toBe(2);
    expect(await atPartner()).toBe(parseUnits('35', 18));
    expect(await owed()).toBe(0n);
    const sent = (await one.parts.journal.entries()).filter((e) => e.kind === 'partner_sent');
    expect(sent.map((e) => e.ref)).toEqual(transfers.map((t) => t.id));
    for (const s of await one.parts.journal.journalSums()) expect(s.sum).toBe(0n);
    const held = await one.parts.journal.held(31337, usdt());
    expect(await reader.readContract({ address: usdt(), abi: erc20Abi, functionName: 'balanceOf', args: [devNetwork(chain.url, contracts).treasury!] })).toBe(
      held.merchants + held.fees + held.payable,
    );
  });

  // As a sweep is, a treasury transaction is counted only once its block has the network's
  // confirmations (2 here): until then a reorganisation could take it away.
  it("counts a withdrawal sent only once its block has the network's confirmations", async () => {
    const rpc = (method: string, params: unknown[] = []) => reader.request({ method: method as 'eth_blockNumber', params: params as never });
    await rpc('evm_setIntervalMining', [0]);
    try {
      const started = await server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: devAccount(6).address, amount: '1' });
      expect(started.status).toBe(201);
      const signed = await until(
        'signed and sent',
        async () => (await server('GET', `/api/v1/withdrawals/${started.body.data.id}`)).body.data.tx_hash as string | null,
      );
      await until('in the pool', async () => (await reader.getTransaction({ hash: signed as `0x${string}` }).catch(() => undefined)) !== undefined);
      await rpc('anvil_mine', ['0x1']);
      expect((await reader.getTransactionReceipt({ hash: signed as `0x${string}` })).status).toBe('success');
      await new Promise((resolve) => setTimeout(resolve, 1500)); // ticks of both senders, at one confirmation
      expect((await server('GET', `/api/v1/withdrawals/${started.body.data.id}`)).body.data.status).toBe('pending');
      await rpc('anvil_mine', ['0x1']);
      await until(
        'counted at two confirmations',
        async () => (await server('GET', `/api/v1/withdrawals/${started.body.data.id}`)).body.data.status === 'completed',
      );
    } finally {
      await rpc('evm_setIntervalMining', [1]);
    }
  });
});

// The money rule as a property, on a real chain (anvil) with the real watcher, ledger and
// storage: for random sequences of transfers (the payment's token, another token, dust, zero),
// re-quotes by the page, reorganisations and confirmations, what is credited to a payment never
// exceeds what reached its address in its own token, and it is confirmed only when that covers
// what is due.
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { ChainStore } from '../../chain/store.ts';
import { depositViews } from '../deposit-views-store.ts';
import { minimumUnits } from '../../chain/networks.ts';
import { Watcher } from '../../chain/watcher.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { caller, creditsOf } from '../../testing/chain.ts';

let chain: DevChain;
let contracts: DevContracts;
let api: Service;
let watcher: Watcher;
const call = caller(() => api.url);
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
const rpc = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });
const CONFIRMATIONS = 2;

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
  const network = devNetwork(chain.url, contracts, CONFIRMATIONS);
  // Hundreds of payments a minute from this test's one client: not what the public key's limit is about.
  api = await startService({ demo: true, networks: { test: network }, jobs: false, publicInitializesPerMinute: { perClient: 100_000, perKey: 100_000 } });
  await call('PUT', '/api/v1/payout_address', { chain_id: chain.chainId, address: devAccount(9).address }, DEMO_MERCHANT.keys.test.secretKey);
  watcher = new Watcher({
    chainId: chain.chainId,
    rpcUrls: [chain.url],
    confirmations: CONFIRMATIONS,
    tokens: network.tokens.map((t) => t.address),
    minimums: new Map(network.tokens.map((t) => [t.address.toLowerCase(), minimumUnits(t)])),
    store: new ChainStore(api.db, depositViews),
    credits: creditsOf(api),
    holder: 'property',
    startBlock: 1n,
    leaseMs: 0,
  });
}, 60_000);
afterAll(async () => {
  await watcher?.stop();
  await api?.close();
  await chain?.stop();
});

type Symbol = 'USDT' | 'USDC' | 'DAI';
const DECIMALS: Record<Symbol, number> = { USDT: 18, USDC: 6, DAI: 18 };
type Step =
  | { kind: 'send'; token: Symbol; amount: 'zero' | 'dust' | 'part' | 'all' }
  | { kind: 'requote'; coin: Symbol }
  | { kind: 'blocks'; n: number }
  | { kind: 'fork' }
  | { kind: 'reorg' };

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('send' as const),
      token: fc.constantFrom<Symbol>('USDT', 'USDT', 'USDC', 'DAI'),
      amount: fc.constantFrom('zero' as const, 'dust' as const, 'part' as const, 'all' as const),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('requote' as const), coin: fc.constantFrom<Symbol>('USDT', 'USDC', 'DAI') }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('blocks' as const), n: fc.integer({ min: 1, max: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fork' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('reorg' as const) }) },
);

/** What the node says of a transaction not mined: the transaction's fees, the next block's base fee, automine, the pool. */
async function nodeState(hash: `0x${string}`): Promise<string> {
  const ask = (method: string, params: unknown[] = []) => rpc(method, params).catch((e: unknown) => `(${method}: ${String(e).slice(0, 80)})`);
  const tx = await reader()
    .getTransaction({ hash })
    .then((t) => ({ nonce: t.nonce, maxFeePerGas: String(t.maxFeePerGas), block: String(t.blockNumber) }))
    .catch(() => 'unknown to the node');
  const pending = (await ask('eth_getBlockByNumber', ['pending', false])) as { baseFeePerGas?: string } | string;
  return JSON.stringify({
    tx,
    nextBaseFee: typeof pending === 'string' ? pending : pending?.baseFeePerGas,
    automine: await ask('anvil_getAutomine'),
    pool: await ask('txpool_status'),
  });
}

const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http('http://127.0.0.1') });
let run = 0;

it('credits a payment no more than reached its address in its own token, and confirms it only when that covers what is due', { timeout: 240_000 }, async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 3, maxLength: 9 }), async (steps) => {
      const reference = `prop-${++run}`;
      const created = await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 });
      expect(created.status).toBe(201);
      const address = created.body.data.address as Address;
      const wallet = createWalletClient({ account: customer.account, chain: foundry, transport: http(chain.url) });
      let snapshot: string | undefined;
      let snapshotHead = 0n;

      const check = async () => {
        const [row] = await api.db.query(`SELECT token, decimals, due, paid FROM payments WHERE reference = $1`, [reference]);
        const token = row.token as Address;
        const received = await reader().readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [address] });
        const paid = BigInt(row.paid as string);
        expect(paid).toBeLessThanOrEqual(received);
        const status = (await call('GET', `/api/v1/transaction/verify/${reference}`)).body.data.status;
        if (status === 'confirmed') expect(paid).toBeGreaterThanOrEqual(BigInt(row.due as string));
        if (paid >= BigInt(row.due as string)) expect(status).toBe('confirmed');
      };
      /** Mines past the confirmations and lets the watcher catch up, so that the chain and the ledger can be compared. */
      const settle = async () => {
        await rpc('anvil_mine', [`0x${(CONFIRMATIONS + 1).toString(16)}`]);
        for (let i = 0; i < 3; i++) await watcher.tick();
      };

      for (const s of steps) {
        if (s.kind === 'send') {
          const [row] = await api.db.query(`SELECT due FROM payments WHERE reference = $1`, [reference]);
          const due = BigInt(row.due as string);
          const units = {
            zero: 0n,
            dust: 1_000n,
            part: parseUnits('3', DECIMALS[s.token]),
            all: s.token === 'USDT' ? due : parseUnits('10', DECIMALS[s.token]),
          }[s.amount];
          const hash = await wallet.writeContract({ address: contracts.tokens[s.token], abi: TestToken.abi, functionName: 'transfer', args: [address, units] });
          await reader()
            .waitForTransactionReceipt({ hash, pollingInterval: 20, timeout: 30_000 })
            .catch(async (error: unknown) => {
              // Once in a CI run a send here was never mined (issue 56): say what the node held then.
              throw new Error(`the ${s.amount} ${s.token} send ${hash} was not mined in 30 s; the node: ${await nodeState(hash)}`, { cause: error });
            });
        } else if (s.kind === 'requote') {
          const answer = await call('POST', '/api/v1/transaction/initialize', { reference, coin: s.coin, currency: 'USD', amount: 10 });
          expect([200, 201, 409]).toContain(answer.status);
        } else if (s.kind === 'blocks') {
          await rpc('anvil_mine', [`0x${s.n.toString(16)}`]);
        } else if (s.kind === 'fork') {
          snapshot = (await rpc('evm_snapshot')) as unknown as string;
          snapshotHead = await reader().getBlockNumber();
        } else if (snapshot) {
          const head = await reader().getBlockNumber();
          await rpc('evm_revert', [snapshot]);
          snapshot = undefined;
          // The new branch outgrows the old one, as a reorganisation that sticks does.
          await rpc('anvil_mine', [`0x${(head - snapshotHead + 2n).toString(16)}`]);
        }
        await watcher.tick();
      }
      await settle();
      await check();
    }),
    { numRuns: 40, endOnFailure: true },
  );
});

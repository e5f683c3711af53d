// Robustness: late money is marked 'late' before the merchant is told of it; a tell that fails
// once (a database error, the process stopping between the two writes) is never tried again,
// since untold() looks only at 'unexpected' transfers. The merchant never hears of the money.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { ChainStore } from '../store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import type { PaymentCredits } from '../confirmed.ts';
import { Watcher } from '../watcher.ts';
import { caller, creditsOf } from '../../testing/chain.ts';

let chain: DevChain;
let contracts: DevContracts;
let api: Service;
let store: ChainStore;
let clock = Date.now();
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
  api = await startService({ demo: true, jobs: false, now: () => clock });
  store = new ChainStore(api.db, depositViews);
}, 60_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});
const request = caller(() => api.url);

it('tells the merchant of late money even when the first tell failed', { timeout: 60_000 }, async () => {
  const real = creditsOf(api, () => clock);
  let fail = true;
  const credits: PaymentCredits = {
    creditBlock: (ts, tx) => real.creditBlock(ts, tx),
    uncredit: (t) => real.uncredit(t),
    unmatched: async (t, why) => {
      if (fail) {
        fail = false;
        throw new Error('connection terminated'); // one failed write, or the process stopping here
      }
      return real.unmatched(t, why);
    },
  };
  const w = new Watcher({
    chainId: chain.chainId,
    rpcUrls: [chain.url],
    confirmations: 1,
    tokens: Object.values(contracts.tokens),
    store,
    credits,
    holder: 'late',
    now: () => clock,
    startBlock: 1n,
    leaseMs: 0,
  });
  const created = (await request('POST', '/api/v1/transaction/initialize', { reference: 'late-1', coin: 'USDT', currency: 'USD', amount: 10 })).body;
  await api.db.query(`UPDATE payments SET chain_id = $1, token = $2 WHERE reference = 'late-1'`, [chain.chainId, contracts.tokens.USDT.toLowerCase()]);
  const to = created.data.address as Address;
  clock += 16 * 60_000; // past the quote, on the chain's clock too: a transfer arrives when its block is made
  await reader().request({ method: 'evm_increaseTime' as 'eth_blockNumber', params: [16 * 60] as never });
  const wallet = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
  await reader().waitForTransactionReceipt({
    hash: await wallet.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits('10', 18)] }),
    pollingInterval: 50,
  });
  await expect(w.tick()).rejects.toThrow(/connection terminated/);
  for (let i = 0; i < 3; i++) await w.tick();
  const t = (await store.transfers(chain.chainId)).find((x) => x.recipient === to.toLowerCase())!;
  expect(t.state).toBe('late');
  const told = (await api.db.query(`SELECT body FROM events WHERE type = 'DEPOSIT_UNMATCHED'`))
    .map((r) => JSON.parse(r.body as string).data)
    .filter((d) => d.payment?.reference === 'late-1');
  expect(told).toHaveLength(1);
  await w.stop();
});

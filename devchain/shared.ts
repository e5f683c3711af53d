// One dev chain per test worker. The chain tests that mine on demand (anvil's automine and their
// own evm_mine) each started an anvil and deployed the contracts again, about two seconds a
// file; they now share one per vitest worker (the service project keeps its modules from one
// file to the next), deployed once, and each file starts from the same state: the chain is put
// back to a snapshot taken right after the deploy, whatever the last file did to it (blocks,
// balances, time moved on, its own snapshots, a test that died half way), its clock set to now.
//
// Files that mine on a clock (TEST_BLOCK_SECONDS) keep a chain of their own: anvil sets a
// clock of whole seconds only over RPC, so a shared chain cannot be given theirs back.
import { startDevChain, type DevChain } from './anvil.ts';
import { deployDevContracts, devRpc, type DevContracts } from './deploy.ts';

/** Accounts 0-3 hold each test coin (the dev pools' liquidity comes from account 0). */
export const SHARED_FUNDED_ACCOUNTS = 4;

interface Worker {
  chain: DevChain;
  contracts: DevContracts;
  /** The snapshot of the chain as deployed; each evm_revert uses one up, so it is taken again. */
  snapshot: string;
}

let worker: Promise<Worker> | undefined;

async function start(): Promise<Worker> {
  const chain = await startDevChain();
  const contracts = await deployDevContracts(chain, SHARED_FUNDED_ACCOUNTS, '1000000', { pools: true });
  // The worker's own process ends with it; anvil's watchdog pipe stops anvil then.
  return { chain, contracts, snapshot: (await devRpc(chain.url, 'evm_snapshot')) as string };
}

/**
 * The worker's dev chain, as deployed: the same contract addresses in every file, accounts 0-3
 * funded, automine on. `chain.stop()` only lets go of it (the next file puts it back anyway).
 */
export async function sharedDevChain(): Promise<{ chain: DevChain; contracts: DevContracts }> {
  worker ??= start().catch((error) => {
    worker = undefined; // a failed start is tried again by the next file, not remembered
    throw error;
  });
  const shared = await worker;
  const { url } = shared.chain;
  if (!(await devRpc(url, 'evm_revert', [shared.snapshot]))) throw new Error('the shared dev chain could not go back to its deployed state');
  shared.snapshot = (await devRpc(url, 'evm_snapshot')) as string;
  // evm_revert puts anvil's clock back to the snapshot's time as well: without this, blocks of a
  // file run minutes after the deploy were dated minutes ago (a late payment was then on time).
  await devRpc(url, 'evm_setTime', [Math.floor(Date.now() / 1000)]);
  await devRpc(url, 'anvil_dropAllTransactions'); // what a file left waiting in the pool
  // evm_revert keeps the base fee anvil set for the next block: a file that raised it (a re-priced
  // treasury transaction at 200 gwei) left the next file's sweeps waiting for fees under the cap.
  const head = (await devRpc(url, 'eth_getBlockByNumber', ['latest', false])) as { baseFeePerGas: string };
  await devRpc(url, 'anvil_setNextBlockBaseFeePerGas', [head.baseFeePerGas]);
  await devRpc(url, 'evm_setAutomine', [true]); // a file may have left it mining on a clock, or not at all
  return { chain: { ...shared.chain, stop: async () => {} }, contracts: shared.contracts };
}

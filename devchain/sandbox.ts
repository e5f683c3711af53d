// The sandbox on a dev chain: "Full", "Partial" and "Over" become real ERC-20 transfers from
// a funded dev account, which the watcher then finds like any other (as BTCPay's cheat mode
// does on regtest). Never on a network that is not marked dev.
import { createWalletClient, http, type Address, type Hex } from 'viem';
import { TestToken } from '../contracts/artifacts.generated.ts';
import { devAccount, GAS_DEV_ACCOUNT, TREASURY_DEV_ACCOUNT } from './deploy.ts';
import type { DevChainPowers, Network } from '../server/chain/networks.ts';

/** The dev account the sandbox pays from: a "customer" of the standard mnemonic. */
export const SANDBOX_PAYER = 1;

/**
 * A real transfer of `amount` to `to` from the sandbox's payer, which first mints itself the
 * same amount of the test token: however often anyone presses, the shared payer never runs dry.
 */
export async function devTransfer(network: Network, token: Address, to: Address, amount: bigint): Promise<Hex> {
  if (!network.dev) throw new Error(`${network.name} is not a dev chain: the sandbox sends nothing there`);
  const wallet = createWalletClient({ account: devAccount(SANDBOX_PAYER), transport: http(network.rpcUrls[0]) });
  await wallet.writeContract({ chain: null, address: token, abi: TestToken.abi, functionName: 'mint', args: [devAccount(SANDBOX_PAYER).address, amount] });
  return wallet.writeContract({ chain: null, address: token, abi: TestToken.abi, functionName: 'transfer', args: [to, amount] });
}

/** What the demo and the tests hand the service for a dev chain: the sandbox's payer and the sweeps' gas account. */
export const DEV_CHAIN_POWERS: DevChainPowers = {
  transfer: devTransfer,
  gasAccount: devAccount(GAS_DEV_ACCOUNT),
  treasuryAccount: devAccount(TREASURY_DEV_ACCOUNT),
};

// The sandbox on a dev chain: "Full", "Partial" and "Over" become real ERC-20 transfers from
// a funded dev account, which the watcher then finds like any other (as BTCPay's cheat mode
// does on regtest). Never on a network that is not marked dev.
import { createWalletClient, http, type Address, type Hex } from 'viem';
import { TestToken } from './artifacts.ts';
import { devAccount } from './deploy.ts';
import type { Network } from './networks.ts';

/** The dev account the sandbox pays from: a "customer" of the standard mnemonic. */
export const SANDBOX_PAYER = 1;

export async function devTransfer(network: Network, token: Address, to: Address, amount: bigint): Promise<Hex> {
  if (!network.dev) throw new Error(`${network.name} is not a dev chain: the sandbox sends nothing there`);
  const wallet = createWalletClient({ account: devAccount(SANDBOX_PAYER), transport: http(network.rpcUrls[0]) });
  return wallet.writeContract({ chain: null, address: token, abi: TestToken.abi, functionName: 'transfer', args: [to, amount] });
}

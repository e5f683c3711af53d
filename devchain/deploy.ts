// Puts the dev chain in the shape the service expects: a test token per coin, with the real
// token's decimals, the deposit factory, and tokens minted to the dev mnemonic's accounts.
import { createPublicClient, createWalletClient, http, parseUnits, type Address, type Hex } from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { DepositFactory, TestToken } from '../contracts/artifacts.generated.ts';
import { DEV_MNEMONIC } from './anvil.ts';
import type { Network } from '../server/chain/networks.ts';

/** The coins of the dev chain: USDT with 18 decimals as on BNB Smart Chain, USDC with 6. */
export const DEV_TOKENS = [
  { symbol: 'USDT', name: 'Tether USD', decimals: 18 },
  { symbol: 'USDC', name: 'USD Coin', decimals: 6 },
  { symbol: 'BUSD', name: 'Binance USD', decimals: 18 },
  { symbol: 'DAI', name: 'Dai', decimals: 18 },
] as const;

export interface DevContracts {
  factory: Address;
  tokens: Record<(typeof DEV_TOKENS)[number]['symbol'], Address>;
}

/** The dev account that pays for sweeps on a dev chain: the operator's gas-only wallet there. */
export const GAS_DEV_ACCOUNT = 8;

/** Dev account `index` of the standard mnemonic (0 is 0xf39F…2266). */
export const devAccount = (index: number) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index });

/** Deploys from account 0; on a fresh chain the addresses are the same every time. */
export async function deployDevContracts(rpcUrl: string, mintTo = 10, mintEach = '1000000'): Promise<DevContracts> {
  const account = devAccount(0);
  const wallet = createWalletClient({ account, chain: foundry, transport: http(rpcUrl) });
  const reader = createPublicClient({ chain: foundry, transport: http(rpcUrl) });
  const deployed = async (hash: Hex) => (await reader.waitForTransactionReceipt({ hash, pollingInterval: 50 })).contractAddress!;
  const tokens = {} as DevContracts['tokens'];
  for (const t of DEV_TOKENS) {
    tokens[t.symbol] = await deployed(await wallet.deployContract({ abi: TestToken.abi, bytecode: TestToken.bytecode, args: [t.name, t.symbol, t.decimals] }));
  }
  const factory = await deployed(await wallet.deployContract({ abi: DepositFactory.abi, bytecode: DepositFactory.bytecode }));
  const mints: Hex[] = [];
  for (const t of DEV_TOKENS) {
    for (let i = 0; i < mintTo; i++) {
      mints.push(await wallet.writeContract({ address: tokens[t.symbol], abi: TestToken.abi, functionName: 'mint', args: [devAccount(i).address, parseUnits(mintEach, t.decimals)] }));
    }
  }
  await Promise.all(mints.map((hash) => reader.waitForTransactionReceipt({ hash, pollingInterval: 50 })));
  return { factory, tokens };
}

/** The dev chain as a network the service takes payments on. */
export function devNetwork(rpcUrl: string, contracts: DevContracts, confirmations = 2): Network {
  return {
    chainId: foundry.id,
    name: 'Local dev chain',
    rpcUrls: [rpcUrl],
    confirmations,
    factory: contracts.factory,
    tokens: DEV_TOKENS.map((t) => ({ symbol: t.symbol, name: t.name, address: contracts.tokens[t.symbol], decimals: t.decimals })),
    dev: true,
  };
}

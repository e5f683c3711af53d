// Puts the dev chain in the shape the service expects: a test token per coin, with the real
// token's decimals, the deposit factory, and tokens minted to the dev mnemonic's accounts.
import { createRequire } from 'node:module';
import {
  createPublicClient,
  createWalletClient,
  defineChain,
  getContractAddress,
  http,
  parseEther,
  parseUnits,
  type Abi,
  type Address,
  type Chain,
  type Hex,
} from 'viem';
import { mnemonicToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { DaiTestToken, DepositFactory, TestToken, UsdcTestToken } from '../contracts/artifacts.generated.ts';
import { DEV_MNEMONIC, type DevChain } from './anvil.ts';
import type { Network } from '../server/chain/networks.ts';

/**
 * The coins of the dev chain: USDT with 18 decimals as on BNB Smart Chain, USDC with 6. Those that
 * sign do it as the real ones (contracts/SignedTokens.sol), in the real token's EIP-712 domain:
 * USDC EIP-3009 and EIP-2612 ("USD Coin", "2"), DAI its own permit ("Dai Stablecoin", "1", also
 * its name on chain); USDT and BUSD sign nothing.
 */
export const DEV_TOKENS = [
  { symbol: 'USDT', name: 'Tether USD', decimals: 18 },
  { symbol: 'USDC', name: 'USD Coin', decimals: 6, signs: { standard: 'eip3009', name: 'USD Coin', version: '2' } },
  { symbol: 'BUSD', name: 'Binance USD', decimals: 18 },
  { symbol: 'DAI', name: 'Dai', decimals: 18, signs: { standard: 'dai-permit', name: 'Dai Stablecoin', version: '1' } },
] as const;

export interface DevContracts {
  factory: Address;
  tokens: Record<(typeof DEV_TOKENS)[number]['symbol'], Address>;
  /** Uniswap v2's router, over pools of USDC, BUSD and DAI each against USDT (with `pools`). */
  router?: Address;
}

/** Uniswap v2's compiled contracts, as npm ships them (@uniswap/v2-core, @uniswap/v2-periphery). */
const uniswap = (path: string) => createRequire(import.meta.url)(path) as { abi: Abi; bytecode: string; evm?: { bytecode: { object: string } } };
const codeOf = (artifact: { bytecode: string }) => (artifact.bytecode.startsWith('0x') ? artifact.bytecode : `0x${artifact.bytecode}`) as Hex;

/** What each dev pool holds of either coin at the start: a price of one to one. */
export const DEV_POOL_DEPTH = '200000';

/** The dev account that pays for sweeps on a dev chain: the operator's gas-only wallet there. */
export const GAS_DEV_ACCOUNT = 8;
/**
 * The dev account that is the operator's treasury on a dev chain (merchants on `balance`
 * settlement): the eleventh of the mnemonic, which no test or demo uses for anything else and
 * anvil does not fund; the deploy gives it gas (ETH) and no tokens, so all it holds is merchants' money.
 */
export const TREASURY_DEV_ACCOUNT = 10;
/**
 * The dev account that stands for the payout partner's deposit address on a dev chain: what the
 * sandbox's bank payouts are owed to it is sent there. Never funded, never sends.
 */
export const PARTNER_DEV_ACCOUNT = 11;

/** Dev account `index` of the standard mnemonic (0 is 0xf39F…2266). */
export const devAccount = (index: number) => mnemonicToAccount(DEV_MNEMONIC, { addressIndex: index });

/**
 * Deploys from account 0; on a fresh chain the addresses are the same every time. Given the
 * chain itself rather than its URL, a chain that mines on a clock mines the set-up's
 * transactions at once (anvil's automine) and gets its clock back after: ~30 transactions, each
 * waited for, took 7-9 s at a block a second, the same in well under one.
 */
export async function deployDevContracts(
  target: string | Pick<DevChain, 'url' | 'blockTimeSeconds'>,
  mintTo = 10,
  mintEach = '1000000',
  options: { pools?: boolean } = {},
): Promise<DevContracts> {
  const chain = typeof target === 'string' ? { url: target } : target;
  // anvil sets a clock of whole seconds only over RPC: a faster one (the tests') keeps mining
  // through the set-up, which then waits a fraction of a second a step.
  if (!chain.blockTimeSeconds || !Number.isInteger(chain.blockTimeSeconds)) return deployAll(chain.url, mintTo, mintEach, options);
  await devRpc(chain.url, 'evm_setAutomine', [true]);
  try {
    return await deployAll(chain.url, mintTo, mintEach, options);
  } finally {
    await devRpc(chain.url, 'evm_setIntervalMining', [chain.blockTimeSeconds]);
  }
}

/** One of anvil's own JSON-RPC methods (evm_*, anvil_*), which viem's clients do not type. */
export async function devRpc(rpcUrl: string, method: string, params: unknown[] = []): Promise<unknown> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** viem's foundry chain with the id the dev chain at `rpcUrl` answers: a second dev chain (a test's wrong chain) has its own. */
async function devChainOf(rpcUrl: string) {
  const id = Number(await devRpc(rpcUrl, 'eth_chainId'));
  return id === foundry.id ? foundry : defineChain({ ...foundry, id });
}

async function deployAll(rpcUrl: string, mintTo: number, mintEach: string, options: { pools?: boolean }): Promise<DevContracts> {
  const account = devAccount(0);
  const chain = await devChainOf(rpcUrl);
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const reader = createPublicClient({ chain, transport: http(rpcUrl) });
  const deployed = async (hash: Hex) => (await reader.waitForTransactionReceipt({ hash, pollingInterval: 50 })).contractAddress!;
  const tokens = {} as DevContracts['tokens'];
  for (const t of DEV_TOKENS) {
    const signs = 'signs' in t ? t.signs : undefined;
    const hash =
      signs?.standard === 'eip3009'
        ? await wallet.deployContract({ abi: UsdcTestToken.abi, bytecode: UsdcTestToken.bytecode, args: [signs.name, t.symbol, t.decimals, signs.version] })
        : signs?.standard === 'dai-permit'
          ? await wallet.deployContract({ abi: DaiTestToken.abi, bytecode: DaiTestToken.bytecode, args: [signs.name, t.symbol, t.decimals, signs.version] })
          : await wallet.deployContract({ abi: TestToken.abi, bytecode: TestToken.bytecode, args: [t.name, t.symbol, t.decimals] });
    tokens[t.symbol] = await deployed(hash);
  }
  const factory = await deployed(await wallet.deployContract({ abi: DepositFactory.abi, bytecode: DepositFactory.bytecode }));
  const mints: Hex[] = [];
  for (const t of DEV_TOKENS) {
    for (let i = 0; i < mintTo; i++) {
      // The treasury (balance settlement) starts with none: all it holds is merchants' money.
      if (i === TREASURY_DEV_ACCOUNT) continue;
      mints.push(
        await wallet.writeContract({
          address: tokens[t.symbol],
          abi: TestToken.abi,
          functionName: 'mint',
          args: [devAccount(i).address, parseUnits(mintEach, t.decimals)],
        }),
      );
    }
  }
  mints.push(await wallet.sendTransaction({ to: devAccount(TREASURY_DEV_ACCOUNT).address, value: parseEther('100') }));
  await Promise.all(mints.map((hash) => reader.waitForTransactionReceipt({ hash, pollingInterval: 50 })));
  return { factory, tokens, ...(options.pools ? { router: await deployPools(rpcUrl, chain, tokens) } : {}) };
}

/**
 * Uniswap v2 on the dev chain: its factory, WETH, the router, and one pool of each of USDC,
 * BUSD and DAI against USDT, DEV_POOL_DEPTH of each side (one to one), from account 0.
 */
async function deployPools(rpcUrl: string, chain: Chain, tokens: DevContracts['tokens']): Promise<Address> {
  const account = devAccount(0);
  const wallet = createWalletClient({ account, chain, transport: http(rpcUrl) });
  const reader = createPublicClient({ chain, transport: http(rpcUrl) });
  // Sent one after another at known nonces, without waiting for each (a block a second on the
  // demo's chain): the contracts' addresses follow from the nonces, and every gas limit is given,
  // since nothing can be estimated against contracts not mined yet.
  let nonce = await reader.getTransactionCount({ address: account.address, blockTag: 'pending' });
  const sent: Hex[] = [];
  const deploy = async (artifact: ReturnType<typeof uniswap>, args: unknown[]) => {
    const address = getContractAddress({ from: account.address, nonce: BigInt(nonce) });
    sent.push(await wallet.deployContract({ abi: artifact.abi, bytecode: codeOf(artifact), args, nonce: nonce++, gas: 6_000_000n }));
    return address;
  };
  const write = async (address: Address, abi: Abi, functionName: string, args: unknown[], gas: bigint) =>
    sent.push(await wallet.writeContract({ address, abi, functionName, args, nonce: nonce++, gas } as Parameters<typeof wallet.writeContract>[0]));
  const factory = await deploy(uniswap('@uniswap/v2-core/build/UniswapV2Factory.json'), [account.address]);
  const weth = await deploy(uniswap('@uniswap/v2-periphery/build/WETH9.json'), []);
  const routerArtifact = uniswap('@uniswap/v2-periphery/build/UniswapV2Router02.json');
  const router = await deploy(routerArtifact, [factory, weth]);
  const decimals = Object.fromEntries(DEV_TOKENS.map((t) => [t.symbol, t.decimals])) as Record<keyof DevContracts['tokens'], number>;
  for (const symbol of ['USDT', 'USDC', 'BUSD', 'DAI'] as const) {
    await write(tokens[symbol], TestToken.abi as Abi, 'mint', [account.address, parseUnits(DEV_POOL_DEPTH, decimals[symbol]) * 3n], 200_000n);
    await write(tokens[symbol], TestToken.abi as Abi, 'approve', [router, 2n ** 256n - 1n], 100_000n);
  }
  for (const symbol of ['USDC', 'BUSD', 'DAI'] as const) {
    const a = parseUnits(DEV_POOL_DEPTH, decimals[symbol]);
    const b = parseUnits(DEV_POOL_DEPTH, decimals.USDT);
    await write(router, routerArtifact.abi, 'addLiquidity', [tokens[symbol], tokens.USDT, a, b, a, b, account.address, 2n ** 40n], 5_000_000n);
  }
  for (const hash of sent) {
    const receipt = await reader.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    if (receipt.status !== 'success') throw new Error(`the dev pools' set-up failed at ${hash}`);
  }
  return router;
}

/** The dev chain as a network the service takes payments on. */
export function devNetwork(rpcUrl: string, contracts: DevContracts, confirmations = 2): Network {
  return {
    chainId: foundry.id,
    name: 'Local dev chain',
    rpcUrls: [rpcUrl],
    confirmations,
    factory: contracts.factory,
    // USDC takes signed transfers (EIP-3009) in its own domain; DAI's permit is not EIP-3009.
    tokens: DEV_TOKENS.map((t) => ({
      symbol: t.symbol,
      name: t.name,
      address: contracts.tokens[t.symbol],
      decimals: t.decimals,
      ...('signs' in t && t.signs.standard === 'eip3009' ? { eip3009: { name: t.signs.name, version: t.signs.version } } : {}),
    })),
    dev: true,
    // Anvil asks a 1 gwei tip, as Ethereum does: a relay's estimate (~2.5e14 wei) would pass the
    // default cap (RELAY_MAX_GAS_WEI, for rollups), so the dev chain sets its own.
    relayMaxGasWei: 10n ** 15n,
    relayDailyGasWei: 10n ** 17n,
    treasury: devAccount(TREASURY_DEV_ACCOUNT).address,
    // Each payout paid is sent to the partner at once on a dev chain (no batching): easy to watch.
    payoutPartner: devAccount(PARTNER_DEV_ACCOUNT).address,
    partnerMinimum: '0',
    ...(contracts.router ? { swapRouter: contracts.router } : {}),
  };
}

// Putting the deposit factory on a public chain, and checking at start that a configured chain
// is what its file says. The factory goes through the deterministic deployment proxy that most
// EVM chains carry (0x4e59…956c, "Arachnid's"), with a fixed salt: the same bytecode gives the
// same factory address on every chain, and a second deploy finds the first.
import {
  createPublicClient,
  createWalletClient,
  erc20Abi,
  formatEther,
  getContractAddress,
  keccak256,
  parseEventLogs,
  toHex,
  concat,
  type Address,
  type Hex,
  type LocalAccount,
  type PublicClient,
} from 'viem';
import { DepositFactory } from '../../contracts/artifacts.generated.ts';
import { chainOf, create2Addresses, implementationOf, networkTransport, originOf, rpcTransport, saltOf, type Network } from './networks.ts';
import { reasonOf } from './sweeper.ts';

export const CREATE2_DEPLOYER: Address = '0x4e59b44847b379578588920ca78fbf26c0b4956c';
/** One salt for every chain: the factory's address depends only on its bytecode. */
export const FACTORY_SALT: Hex = keccak256(toHex('service-checkout/deposit-factory/v2'));

/** Where the deployment proxy puts this tree's factory, on any chain. */
export const factoryAddress = (): Address =>
  getContractAddress({ opcode: 'CREATE2', from: CREATE2_DEPLOYER, salt: FACTORY_SALT, bytecode: DepositFactory.bytecode });

/** Gas a sweep of one deposit needs at most, for "enough to sweep" (its first sweep is ~120k; batches cost more, in proportion). */
export const SWEEP_GAS = 300_000n;
/** Below this many sweeps' worth at today's gas price, a gas wallet is running low: /readyz says so, and the sweep job warns once. */
export const GAS_LOW_SWEEPS = 10n;

/** A gas wallet's balance against what `sweeps` sweeps cost at today's gas price. */
export async function gasStanding(
  rpc: PublicClient,
  gas: Address,
  sweeps = GAS_LOW_SWEEPS,
): Promise<{ balance: bigint; need: bigint; low: boolean; detail: string }> {
  const [balance, price] = await Promise.all([rpc.getBalance({ address: gas }), rpc.getGasPrice()]);
  const need = SWEEP_GAS * price * sweeps;
  return {
    balance,
    need,
    low: balance < need,
    detail: `${gas} holds ${formatEther(balance)}; ${sweeps} sweeps need about ${formatEther(need)} at today's gas price`,
  };
}

export interface Deployed {
  chainId: number;
  factory: Address;
  implementation: Address;
  /** False when the factory was already there (deployed before, by anyone: its address proves its code). */
  deployed: boolean;
  transaction?: Hex;
}

const client = (rpcUrl: string) => createPublicClient({ cacheTime: 0, transport: rpcTransport([rpcUrl]) }) as PublicClient;

/** Deploys the factory through the deployment proxy, or finds it there. */
export async function deployFactory(rpcUrl: string, account: LocalAccount): Promise<Deployed> {
  const rpc = client(rpcUrl);
  const chainId = await rpc.getChainId();
  const factory = factoryAddress();
  const implementation = implementationOf(factory);
  // A CREATE2 address is the hash of its init code: code there is this factory, whoever put it.
  if (await rpc.getCode({ address: factory })) return { chainId, factory, implementation, deployed: false };
  if (!(await rpc.getCode({ address: CREATE2_DEPLOYER }))) {
    throw new Error(
      `chain ${chainId} has no deterministic deployment proxy at ${CREATE2_DEPLOYER}; deploy it first (github.com/Arachnid/deterministic-deployment-proxy has its one signed transaction), then run this again`,
    );
  }
  const wallet = createWalletClient({ account, transport: rpcTransport([rpcUrl]) });
  const transaction = await wallet.sendTransaction({
    chain: chainOf({ chainId, name: `chain ${chainId}`, rpcUrls: [rpcUrl] }),
    to: CREATE2_DEPLOYER,
    data: concat([FACTORY_SALT, DepositFactory.bytecode]),
  });
  const receipt = await rpc.waitForTransactionReceipt({ hash: transaction, pollingInterval: 500, timeout: 300_000 });
  if (receipt.status !== 'success' || !(await rpc.getCode({ address: factory })))
    throw new Error(`the deployment ${transaction} on chain ${chainId} did not leave the factory at ${factory}`);
  return { chainId, factory, implementation, deployed: true, transaction };
}

/** A configured chain that is not what its file says: the field, and what the chain says instead. */
export class NetworkMismatch extends Error {}

/**
 * Checks a network as configured against the chain itself, before anything is taken on it: the
 * chain id, the factory's code (through a deposit address computed here and by the factory),
 * each token's decimals and symbol, and, with a gas wallet, that it can pay for a sweep. Throws
 * NetworkMismatch naming the file's field.
 */
export async function verifyNetwork(network: Network, field: string, gas?: Address): Promise<void> {
  const rpc = createPublicClient({ cacheTime: 0, transport: rpcTransport(network.rpcUrls) }) as PublicClient;
  const wrong = (at: string, says: string) => new NetworkMismatch(`NETWORKS_FILE ${field}.${at}: ${says}`);
  // Each URL on its own: fallback() would stop at the first that answers, and a later
  // one on another chain would serve the next failover. One that does not answer now may later.
  const answers = await Promise.all(
    network.rpcUrls.map((url) => (createPublicClient({ cacheTime: 0, transport: rpcTransport([url]) }) as PublicClient).getChainId().catch(() => undefined)),
  );
  if (answers.every((a) => a === undefined)) {
    // Origins only: a provider's URL often carries its API key in the path or query.
    throw wrong('rpcUrls', `no answer from ${network.rpcUrls.map(originOf).join(', ')}; check the URL and that the node is up`);
  }
  for (const [i, answered] of answers.entries()) {
    if (answered === undefined || answered === network.chainId) continue;
    const at = network.rpcUrls.length === 1 ? 'chainId' : `rpcUrls.${i}`;
    throw wrong(
      at,
      `${network.rpcUrls.length === 1 ? 'the RPC' : originOf(network.rpcUrls[i]!)} answers chain ${answered}, the file says ${network.chainId}: a wrong RPC URL, or a wrong chain id`,
    );
  }
  const chainId = network.chainId;
  const factoryProblem = `is not this service's deposit factory (${factoryAddress()} is, once deployed with npm run service -- chain deploy); an address computed from other code would take money no sweep can move`;
  // The factory's address is the proof of its code (CREATE2 through the deployment proxy, this
  // bytecode and salt): any other address may hold a contract that only answers like it.
  if (network.factory.toLowerCase() !== factoryAddress().toLowerCase()) throw wrong('factory', `${network.factory} ${factoryProblem}`);
  if (!(await rpc.getCode({ address: network.factory }))) throw wrong('factory', `no contract at ${network.factory} on chain ${chainId}: it ${factoryProblem}`);
  const sample = {
    merchantId: '00000000-0000-0000-0000-000000000000',
    mode: 'check',
    reference: 'start-up',
    payout: '0x000000000000000000000000000000000000dEaD' as Address,
  };
  const expected = create2Addresses(network.factory).addressFor(sample);
  const onChain = await rpc
    .readContract({
      address: network.factory,
      abi: DepositFactory.abi,
      functionName: 'addressOf',
      args: [sample.payout, keccak256(toHex(`${sample.merchantId}/${sample.mode}/${sample.reference}`))],
    })
    .catch(() => undefined);
  if (onChain?.toLowerCase() !== expected.toLowerCase()) throw wrong('factory', `${network.factory} ${factoryProblem}`);
  for (const [i, token] of network.tokens.entries()) {
    const [decimals, symbol] = await Promise.all([
      rpc.readContract({ address: token.address, abi: erc20Abi, functionName: 'decimals' }).catch(() => undefined),
      rpc.readContract({ address: token.address, abi: erc20Abi, functionName: 'symbol' }).catch(() => undefined),
    ]);
    if (decimals === undefined) throw wrong(`tokens.${i}.address`, `${token.address} on chain ${chainId} answers no decimals(): not an ERC-20 token`);
    if (decimals !== token.decimals)
      throw wrong(
        `tokens.${i}.decimals`,
        `${token.symbol} at ${token.address} has ${decimals} decimals, the file says ${token.decimals}: every amount would be off by 10^${Math.abs(decimals - token.decimals)}`,
      );
    if (symbol !== undefined && !symbol.toUpperCase().includes(token.symbol) && !token.symbol.includes(symbol.toUpperCase())) {
      throw wrong(`tokens.${i}.address`, `the token at ${token.address} calls itself ${JSON.stringify(symbol)}, the file says ${token.symbol}`);
    }
  }
  if (gas) {
    const [balance, price] = await Promise.all([rpc.getBalance({ address: gas }), rpc.getGasPrice()]);
    const need = SWEEP_GAS * price;
    if (balance < need)
      throw new NetworkMismatch(
        `GAS_WALLET_KEY: the gas wallet ${gas} holds ${formatEther(balance)} on chain ${chainId}, less than one sweep needs (about ${formatEther(need)} at today's gas price); fund it, then start again`,
      );
  }
}

/**
 * Sweeps one deposit's whole balance of `token` (the zero address: the native coin) to the
 * payout address it was made for: money the watcher does not follow (a token no network lists,
 * the chain's own coin), which the operator moves on request. Answers what moved, or why not.
 */
export async function sweepAny(
  network: Network,
  gas: LocalAccount,
  payment: { merchantId: string; mode: string; reference: string; payout: Address },
  token: Address,
): Promise<{ deposit: Address; amount: bigint; transaction: Hex; failed?: string }> {
  const rpc = createPublicClient({ cacheTime: 0, transport: networkTransport(network) }) as PublicClient;
  const deposit = create2Addresses(network.factory).addressFor(payment);
  const wallet = createWalletClient({ account: gas, transport: networkTransport(network) });
  const transaction = await wallet.writeContract({
    chain: chainOf(network),
    address: network.factory,
    abi: DepositFactory.abi,
    functionName: 'sweep',
    args: [[{ payout: payment.payout, salt: saltOf(payment.merchantId, payment.mode, payment.reference), token }]],
  });
  const receipt = await rpc.waitForTransactionReceipt({ hash: transaction, pollingInterval: 500, timeout: 300_000 });
  if (receipt.status !== 'success') return { deposit, amount: 0n, transaction, failed: 'the transaction reverted' };
  const logs = receipt.logs.filter((log) => log.address.toLowerCase() === network.factory.toLowerCase());
  const failed = parseEventLogs({ abi: DepositFactory.abi, eventName: 'SweepFailed', logs })[0];
  if (failed) return { deposit, amount: 0n, transaction, failed: reasonOf(failed.args.reason) };
  const swept = parseEventLogs({ abi: DepositFactory.abi, eventName: 'Swept', logs })[0];
  return { deposit, amount: swept?.args.amount ?? 0n, transaction };
}

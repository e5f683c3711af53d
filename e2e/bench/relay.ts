// npm run bench:relay: paying with one signature against a plain transfer, on a local dev chain
// (anvil, 1 s blocks, one confirmation), the same service and coin (USDC, 24.50 USD). For each,
// the median time from the customer's signature (the typed-data signature the service relays,
// or the transfer its wallet signs and sends) to the merchant's webhook saying the payment is
// confirmed; and what the operator's gas wallet spends per payment, relay and sweep against the
// sweep alone (each payment swept on its own: one deposit, deployed by its first sweep), as the
// gas wallet's balance moved and as gas used. Reports; asserts nothing.
import { createPublicClient, createWalletClient, http, parseEther, parseUnits, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { startService } from '../../server/service/app.ts';
import { TestToken } from '../../contracts/artifacts.generated.ts';
import { startDevChain } from '../../devchain/anvil.ts';
import { deployDevContracts, devAccount, devNetwork, GAS_DEV_ACCOUNT } from '../../devchain/deploy.ts';
import { DEV_CHAIN_POWERS } from '../../devchain/sandbox.ts';
import { DEMO_MERCHANT } from '../../server/service/seed.ts';
import { caller } from '../../server/testing/chain.ts';
import { startReceiver } from '../../server/testing/receiver.ts';
import { relayPayments } from '../../server/testing/relay-payments.ts';
import { ms, summarize, table } from './stats.ts';

const SAMPLES = Number(process.env.SAMPLES ?? 8);
const CONFIRMATIONS = 1;
const { secretKey } = DEMO_MERCHANT.keys.test;

const chain = await startDevChain({ blockTimeSeconds: 1 });
const contracts = await deployDevContracts(chain, 3);
const network = devNetwork(chain.url, contracts, CONFIRMATIONS);
const api = await startService({
  demo: true,
  networks: { test: network },
  devChain: DEV_CHAIN_POWERS,
  watchIntervalMs: 250,
  webhookRetryMs: 250,
  sweepIntervalMs: 500,
});
const call = caller(() => api.url);
const reader = createPublicClient({ chain: foundry, transport: http(chain.url), cacheTime: 0 });
const gasWallet = devAccount(GAS_DEV_ACCOUNT).address;
const usdc = contracts.tokens.USDC;
const funder = devAccount(3);
const { sign, relay } = relayPayments({ call, chainUrl: () => chain.url, network: () => network, usdc: () => usdc, funder });
const sleep = (msecs: number) => new Promise((resolve) => setTimeout(resolve, msecs));
const mined = (hash: Hex) => reader.waitForTransactionReceipt({ hash, pollingInterval: 20 });

await call('PUT', '/api/v1/payout_address', { chain_id: chain.chainId, address: devAccount(9).address }, secretKey);
const hook = await startReceiver((await call('GET', '/api/v1/webhook', undefined, secretKey)).body.data.secret);
await call('PUT', '/api/v1/webhook', { url: hook.url }, secretKey);

/** A payment of 24.50 USD in USDC, and a fresh customer holding 25 USDC (and 0.01 ETH where it pays by transfer). */
async function payment(reference: string, eth: boolean) {
  const created = (await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDC', currency: 'USD', amount: 24.5 })).body.data;
  const payer = privateKeyToAccount(generatePrivateKey());
  const wallet = createWalletClient({ account: funder, chain: foundry, transport: http(chain.url) });
  await mined(await wallet.writeContract({ address: usdc, abi: TestToken.abi, functionName: 'mint', args: [payer.address, parseUnits('25', 6)] }));
  if (eth) await mined(await wallet.sendTransaction({ to: payer.address, value: parseEther('0.01') }));
  return { reference, address: created.address as Address, due: parseUnits(String(created.cryptoAmount), 6), payer };
}

/** Until the webhook says `reference` is confirmed: when (performance.now()). */
async function confirmedAt(reference: string): Promise<number> {
  for (;;) {
    if (hook.events.some((e) => e.data.reference === reference && e.data.status === 'confirmed')) return performance.now();
    await sleep(10);
  }
}

/** The gas wallet's transactions mined in blocks `from` to `to`: their gas used. */
async function gasUsedBetween(from: bigint, to: bigint): Promise<bigint> {
  let used = 0n;
  for (let n = from; n <= to; n++) {
    const block = await reader.getBlock({ blockNumber: n, includeTransactions: true });
    for (const tx of block.transactions)
      if (tx.from.toLowerCase() === gasWallet.toLowerCase()) used += (await reader.getTransactionReceipt({ hash: tx.hash })).gasUsed;
  }
  return used;
}

/** One payment paid by `pay`: from its signature to the confirmed webhook, and what the gas wallet spent on it until its deposit was swept. */
async function measure(reference: string, eth: boolean, pay: (p: Awaited<ReturnType<typeof payment>>) => Promise<void>) {
  const p = await payment(reference, eth);
  const [balance, block] = [await reader.getBalance({ address: gasWallet }), await reader.getBlockNumber()];
  const started = performance.now();
  await pay(p);
  const seconds = (await confirmedAt(reference)) - started;
  while ((await reader.readContract({ address: usdc, abi: TestToken.abi, functionName: 'balanceOf', args: [p.address] })) > 0n) await sleep(100);
  await sleep(1_200); // the sweep's block, and any transaction of the gas wallet's after it
  const spent = balance - (await reader.getBalance({ address: gasWallet }));
  return { ms: seconds, wei: spent, gas: await gasUsedBetween(block + 1n, await reader.getBlockNumber()) };
}

const bySignature = async (p: Awaited<ReturnType<typeof payment>>) => {
  const signed = await sign(p.payer as LocalAccount, p.address, p.due);
  const relayed = await relay({ ...p, signed } as Parameters<typeof relay>[0]);
  if (relayed.status !== 201) throw new Error(`relay answered ${relayed.status}: ${JSON.stringify(relayed.body)}`);
};
const byTransfer = async (p: Awaited<ReturnType<typeof payment>>) => {
  const wallet = createWalletClient({ account: p.payer, chain: foundry, transport: http(chain.url) });
  await wallet.writeContract({ address: usdc, abi: TestToken.abi, functionName: 'transfer', args: [p.address, p.due] });
};

try {
  const runs: Record<'signature' | 'transfer', Array<Awaited<ReturnType<typeof measure>>>> = { signature: [], transfer: [] };
  for (let i = 0; i < SAMPLES; i++) {
    runs.signature.push(await measure(`bench-relay-${i}`, false, bySignature));
    runs.transfer.push(await measure(`bench-transfer-${i}`, true, byTransfer));
  }
  const median = (xs: bigint[]) => summarize(xs.map(Number)).median;
  const row = (label: string, list: Array<Awaited<ReturnType<typeof measure>>>) => {
    const time = summarize(list.map((r) => r.ms));
    return [
      label,
      ms(time.median),
      `${ms(time.min)} - ${ms(time.max)}`,
      String(median(list.map((r) => r.gas))),
      `${(median(list.map((r) => r.wei)) / 1e9).toFixed(0)} gwei`,
    ];
  };
  console.log(
    `paying 24.50 USD in USDC on anvil (1 s blocks, ${CONFIRMATIONS} confirmation), ${SAMPLES} payments each; the operator's gas: relay + sweep vs sweep`,
  );
  console.log(
    table([
      [
        'how the customer pays',
        'signature -> confirmed webhook (median)',
        'min - max',
        "operator's gas used per payment (median)",
        'gas wallet spent (median)',
      ],
      row('one signature (relayed)', runs.signature),
      row('plain transfer', runs.transfer),
    ]),
  );
} finally {
  await hook.close();
  await api.close();
  await chain.stop();
}

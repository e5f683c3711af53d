// npm run bench -- --chain: the chain side on a local dev chain (anvil). Detection latency,
// from the transfer's block to the service reporting the payment confirmed (a long poll, as
// the checkout waits), at 1 and 2 confirmations; and the watcher's cost per block (RPC calls,
// service CPU) with 10, 1,000 and 10,000 open payments. Reports; asserts nothing.
import { createPublicClient, createWalletClient, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService } from '../../server/service/app.ts';
import { TestToken } from '../../contracts/artifacts.generated.ts';
import { deployDevContracts, devAccount, devNetwork } from '../../devchain/deploy.ts';
import { startDevChain } from '../../devchain/anvil.ts';
import { DEMO_MERCHANT } from '../../server/service/seed.ts';
import { networkWatcher } from '../../server/testing/chain.ts';
import { paymentVersion } from '../../contract/schemas.ts';
import { ms, summarize, table } from './stats.ts';
import { DEV_CHAIN_POWERS } from '../../devchain/sandbox.ts';

const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
const BLOCK_SECONDS = 1;
const SAMPLES = 8;

async function detection(confirmations: number) {
  const chain = await startDevChain({ blockTimeSeconds: BLOCK_SECONDS });
  const contracts = await deployDevContracts(chain, 3);
  const api = await startService({
    demo: true,
    networks: { test: devNetwork(chain.url, contracts, confirmations) },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 250,
  });
  const headers = { 'x-api-key': publicKey, 'content-type': 'application/json' };
  await fetch(api.url + '/api/v1/payout_address', {
    method: 'PUT',
    headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ chain_id: chain.chainId, address: devAccount(9).address }),
  });
  const wallet = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
  const reader = createPublicClient({ chain: foundry, transport: http(chain.url), pollingInterval: 20 });
  const samples: number[] = [];
  try {
    for (let i = 0; i < SAMPLES; i++) {
      const reference = `bench-${confirmations}-${i}`;
      const quote = (
        await (
          await fetch(api.url + '/api/v1/transaction/initialize', {
            method: 'POST',
            headers,
            body: JSON.stringify({ reference, coin: 'USDT', currency: 'USD', amount: 10 }),
          })
        ).json()
      ).data;
      const hash = await wallet.writeContract({
        address: contracts.tokens.USDT,
        abi: TestToken.abi,
        functionName: 'transfer',
        args: [quote.address as Address, parseUnits(String(quote.cryptoAmount), 18)],
      });
      await reader.waitForTransactionReceipt({ hash, pollingInterval: 20 });
      const mined = performance.now(); // within ~20 ms of the block
      for (let since = ''; ; ) {
        const answer = (
          await (
            await fetch(`${api.url}/api/v1/transaction/verify/${reference}${since ? `?wait=25&since=${encodeURIComponent(since)}` : ''}`, { headers })
          ).json()
        ).data;
        if (answer.status === 'confirmed') break;
        since = paymentVersion(answer);
      }
      samples.push(performance.now() - mined);
    }
  } finally {
    await api.close();
    await chain.stop();
  }
  return summarize(samples);
}

async function watcherCost(open: number) {
  const chain = await startDevChain(); // mines on each transaction; blocks are made below
  const contracts = await deployDevContracts(chain, 3);
  const api = await startService({ demo: true, jobs: false });
  try {
    // Open payments on the dev chain, written straight into storage (the bench needs many).
    await api.db.query(
      `INSERT INTO payments (merchant_id, mode, reference, created_by, coin, chain_id, token, decimals, currency, fiat_minor, due, fee, fiat_rate, crypto_rate,
         address, accept_partial, customer_name, customer_email, expires_ms, created_ms, updated_ms)
       SELECT $1, 'test', 'open-' || n, 'public', 'USDT', $2, $3, 18, 'USD', 1000, 10100000000000000000, 100000000000000000, '1', '1',
         '0x' || lpad(to_hex(n), 40, '0'), false, '', '', $4, $5, $5 FROM generate_series(1, $6) AS n`,
      [DEMO_MERCHANT.id, chain.chainId, contracts.tokens.USDT.toLowerCase(), Date.now() + 3_600_000, Date.now(), open],
    );
    let calls = 0;
    const watcher = networkWatcher(api, devNetwork(chain.url, contracts, 2), { holder: 'bench', startBlock: 1n, onRpc: () => calls++ });
    await watcher.tick();
    // Each block: 3 transfers to open payments and 3 to strangers, then one tick.
    const wallet = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    const BLOCKS = 20;
    let cpu = 0;
    let wall = 0;
    calls = 0;
    for (let b = 0; b < BLOCKS; b++) {
      for (let t = 0; t < 6; t++) {
        const to = t < 3 ? (`0x${(1 + ((b * 3 + t) % open)).toString(16).padStart(40, '0')}` as Address) : devAccount(4 + t).address;
        await wallet.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, 1n] });
      }
      const before = process.cpuUsage();
      const started = performance.now();
      await watcher.tick();
      wall += performance.now() - started;
      const used = process.cpuUsage(before);
      cpu += (used.user + used.system) / 1000;
    }
    await watcher.stop();
    return { callsPerBlock: calls / BLOCKS / 6, cpuPerTick: cpu / BLOCKS, wallPerTick: wall / BLOCKS };
  } finally {
    await api.close();
    await chain.stop();
  }
}

export async function chainBench() {
  const rows = [["detection: transfer's block → confirmed (long poll)", 'median', 'min', 'max', 'target (block × confirmations + 300 ms)']];
  for (const confirmations of [1, 2]) {
    const s = await detection(confirmations);
    rows.push([
      `  ${confirmations} confirmation${confirmations > 1 ? 's' : ''}, ${BLOCK_SECONDS} s blocks, n=${s.n}`,
      ms(s.median),
      ms(s.min),
      ms(s.max),
      ms(BLOCK_SECONDS * 1000 * confirmations + 300),
    ]);
  }
  console.log('\n' + table(rows));
  const cost = [
    ['watcher: 6 transfers (3 to open payments), 6 blocks, one tick', 'RPC calls per block', 'service CPU per tick', 'wall per tick', 'CPU vs 10 open'],
  ];
  let base = 0;
  for (const open of [10, 1_000, 10_000]) {
    const c = await watcherCost(open);
    base ||= c.cpuPerTick;
    cost.push([
      `  ${open.toLocaleString('en')} open payments`,
      c.callsPerBlock.toFixed(2),
      ms(c.cpuPerTick),
      ms(c.wallPerTick),
      `${(c.cpuPerTick / base).toFixed(2)}×`,
    ]);
  }
  console.log('\n' + table(cost));
}

// The RPC endpoint down while customers pay, for longer than the watcher's whole backoff (its
// wait doubles up to its cap, then stays there): the service keeps answering, the watcher backs
// off, and once the endpoint is back it catches up from its stored cursor and counts every
// transfer of the outage once. The endpoint is a proxy in front of anvil that is stopped
// (connections refused) and started again on the same port. The cap is a setting
// (watchBackoffCapMs, 10 s by default): here half a second, so the outage takes seconds, not half
// a minute (it was 30 s at the 10 s cap), and still holds several attempts at the cap.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { deployDevContracts, devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { caller, until } from '../../testing/chain.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const WATCH_MS = 200;
/** The watcher's longest wait between attempts while the endpoint is down. */
const BACKOFF_CAP_MS = 500;
/**
 * The waits double from WATCH_MS: 400, then the cap. Each failed attempt also takes about
 * 0.6 s (the RPC client's own two retries), so ten seconds down hold some eight attempts at
 * the cap. Uncapped, the attempts come about 0.8, 1.8, 3.2, 5.4, 8.6 and 15.6 s into the
 * outage: the next after the endpoint is back would be some 5 s away.
 */
const OUTAGE_MS = 10_000;
let chain: DevChain;
let contracts: DevContracts;
let proxy: Awaited<ReturnType<typeof startProxy>>;
let api: Service;

beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  contracts = await deployDevContracts(chain, 4); // accounts 0-3 funded; 3 pays here
  proxy = await startProxy(chain.port);
  api = await startService({
    demo: true,
    networks: { test: devNetwork(proxy.url(), contracts, 2) },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: WATCH_MS,
    watchBackoffCapMs: BACKOFF_CAP_MS,
  });
}, 60_000);
afterAll(async () => {
  await api?.close();
  await proxy?.stop();
  await chain?.stop();
});

const call = caller(() => api.url);
const verify = async (reference: string) => (await call('GET', `/api/v1/transaction/verify/${reference}`)).body.data;
/** A customer's transfer, straight to the node (not through the proxy that is down). */
async function pay(to: Address, amount: string) {
  const wallet = createWalletClient({ account: devAccount(3), chain: foundry, transport: http(chain.url) });
  const hash = await wallet.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits(amount, 18)] });
  await createPublicClient({ chain: foundry, transport: http(chain.url) }).waitForTransactionReceipt({ hash, pollingInterval: 100 });
}

it('misses nothing while the RPC endpoint is down for longer than the backoff, and counts each transfer of the outage once', { timeout: 120_000 }, async () => {
  await call('PUT', '/api/v1/payout_address', { chain_id: 31337, address: devAccount(9).address }, secretKey);
  const address: Record<string, Address> = {};
  for (const reference of ['o-before', 'o-split', 'o-whole']) {
    address[reference] = (await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: 10 })).body.data.address;
  }
  await pay(address['o-before']!, '10');
  await until('the payment before the outage', async () => (await verify('o-before')).status === 'confirmed', 20_000);

  await proxy.stop();
  const down = Date.now();
  await pay(address['o-split']!, '4');
  await pay(address['o-whole']!, '10');
  await pay(address['o-split']!, '6');
  while (Date.now() - down < OUTAGE_MS) {
    // The service keeps answering throughout; what it cannot see yet it does not invent.
    const during = await call('GET', '/api/v1/transaction/verify/o-whole');
    expect(during.status).toBe(200);
    expect(during.body.data).toMatchObject({ status: 'pending', amountPaid: 0 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  const head = await createPublicClient({ chain: foundry, transport: http(chain.url) }).getBlockNumber();
  await proxy.start();
  const back = Date.now();

  await until(
    "the outage's payments",
    async () => (await verify('o-split')).status === 'confirmed' && (await verify('o-whole')).status === 'confirmed',
    20_000,
  );
  const caughtUpMs = Date.now() - back;
  expect(await verify('o-split')).toMatchObject({ amountPaid: 10 });
  expect(await verify('o-whole')).toMatchObject({ amountPaid: 10 });
  // Each transfer counted once: one DEPOSIT_TRANSACTION per transfer, the split one has two.
  const told = await api.db.query(`SELECT body FROM events WHERE type = 'DEPOSIT_TRANSACTION'`);
  const count = (reference: string) => told.filter((r) => (r.body as string).includes(`"reference":"${reference}"`)).length;
  expect([count('o-before'), count('o-split'), count('o-whole')]).toEqual([1, 2, 1]);
  // The backoff is capped, so the watcher comes back soon after the endpoint does: within the
  // cap, a failed attempt's retries and the catching up (uncapped, it would be some 5 s).
  expect(caughtUpMs).toBeLessThan(BACKOFF_CAP_MS + 2_500);
  console.log(`outage ${OUTAGE_MS / 1000} s, ${head} blocks on the chain; caught up ${caughtUpMs} ms after the endpoint came back`);
});

/** A proxy in front of anvil that can be stopped (connections refused) and started again on its port. */
async function startProxy(target: number) {
  let server: Server | undefined;
  let port = 0;
  const sockets = new Set<Socket>();
  const start = async () => {
    server = createServer((req, res) => {
      const forward = httpRequest({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.socket?.destroy());
      req.pipe(forward);
    });
    server.on('connection', (socket) => (sockets.add(socket), socket.on('close', () => sockets.delete(socket))));
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  };
  await start();
  return {
    url: () => `http://127.0.0.1:${port}`,
    start,
    stop: async () => {
      const closing = new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      sockets.forEach((socket) => socket.destroy());
      await closing;
      server = undefined;
    },
  };
}

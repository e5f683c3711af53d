// What the tests on the dev chain share (in chain/, balances/, refunds/ and payments/): calling
// the service as a merchant's page (public key) or server (secret key), waiting for something
// the chain makes true, and a node in front of anvil that misbehaves as a test tells it to.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Service } from '../service/app.ts';
import { paymentCredits } from '../payments/chain-credits.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';
import { createPublicClient, createWalletClient, erc20Abi, http, type Address, type LocalAccount } from 'viem';
import { foundry } from 'viem/chains';
import type { Network } from '../chain/networks.ts';
import { ChainStore } from '../chain/store.ts';
import { depositViews } from '../payments/deposit-views-store.ts';
import { Sweeper } from '../chain/sweeper.ts';
import { Watcher, type WatcherOptions } from '../chain/watcher.ts';

/** A caller of the service at `base()`: the demo merchant's public test key unless told another. */
export function caller(base: () => string) {
  return async (method: string, path: string, body?: unknown, key = DEMO_MERCHANT.keys.test.publicKey) => {
    const response = await fetch(base() + path, {
      method,
      headers: key.startsWith('sk_')
        ? { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
        : { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    // Untyped on purpose: each test reads the fields it checks.
    return { status: response.status, body: (await response.json()) as any };
  };
}

/** The watcher's ledger on a test service's own database and stores, as the service's watch job builds it; `now` is its clock. */
export const creditsOf = (api: Service, now = Date.now) =>
  paymentCredits({ payments: api.parts.payments, crediting: api.parts.crediting, merchants: api.parts.merchants, now });

/** A watcher of `network` on a test service's own database and stores, as its watch job builds one; `o` sets the rest (holder, startBlock, lease…). */
export const networkWatcher = (api: Service, network: Network, o: Partial<WatcherOptions> & Pick<WatcherOptions, 'holder'>) =>
  new Watcher({
    chainId: network.chainId,
    rpcUrls: network.rpcUrls,
    confirmations: network.confirmations,
    tokens: network.tokens.map((t) => t.address),
    store: new ChainStore(api.db, depositViews),
    credits: creditsOf(api),
    ...o,
  });

/** The stores a treasury sender works with, a test service's own, as startService hands them to its jobs. */
export const treasuryStores = (api: Service) => {
  const { journal, swaps, withdrawals, partnerTransfers, treasuryTxs, balanceTransactions, treasuryHolds } = api.parts;
  return { journal, swaps, withdrawals, partnerTransfers, treasuryTxs, balanceTransactions, treasuryHolds };
};

/** The statuses a test service told of one withdrawal or refund by its events of `type` (WITHDRAWAL_UPDATED, REFUND_UPDATED), oldest first. */
export const toldStatuses = async (api: Service, type: string, id: string): Promise<string[]> =>
  (await api.db.query<{ body: string }>(`SELECT body FROM events WHERE type = $1 ORDER BY seq`, [type]))
    .map((e) => JSON.parse(e.body).data)
    .filter((d: { id: string }) => d.id === id)
    .map((d: { status: string }) => d.status);

/**
 * `amount` (base units) of `token` sent by `accounts.payer` (the tests': dev account 1) to `to` (a balance-settled payment's
 * deposit address) on a dev chain that mines each transaction at once, seen by one watcher tick
 * and swept into the treasury by one sweeper tick: the service's jobs off, the money is then in
 * the merchant's balance (journaled when read). Answers the sweeper's tick.
 */
export async function sweptIntoBalance(
  api: Service,
  network: Network,
  token: Address,
  to: Address,
  amount: bigint,
  accounts: { payer: LocalAccount; gas: LocalAccount },
) {
  const transport = http(network.rpcUrls[0]);
  const reader = createPublicClient({ chain: foundry, transport });
  const store = new ChainStore(api.db, depositViews);
  const watcher = networkWatcher(api, network, {
    confirmations: 1,
    store,
    holder: 'swept-into-balance',
    startBlock: (await reader.getBlockNumber()) + 1n,
    leaseMs: 0,
  });
  const payer = createWalletClient({ account: accounts.payer, chain: foundry, transport });
  await reader.waitForTransactionReceipt({
    hash: await payer.writeContract({ address: token, abi: erc20Abi, functionName: 'transfer', args: [to, amount] }),
    pollingInterval: 50,
  });
  await watcher.tick();
  return new Sweeper({ network, store, gas: accounts.gas }).tick();
}

/** Polls `probe` until it answers something truthy, and answers that; fails after `ms`. */
export async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 20_000, everyMs = 100): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** One JSON-RPC call as a proxy reads it. */
export interface RpcCall {
  id?: number;
  method?: string;
  params?: any[];
}

/**
 * A node in front of anvil at `target` (its URL). Each request goes to `intercept` first, which
 * answers it (a JSON-RPC body, sent back in anvil's place), cuts the connection ('drop'), or
 * lets it through to anvil (undefined). A body is one call or a batch, as the client sent it.
 */
export async function rpcProxy(target: string, intercept: (body: RpcCall | RpcCall[]) => unknown) {
  const port = Number(new URL(target).port);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const body = Buffer.concat(chunks);
      const answer = await intercept(JSON.parse(body.toString() || '{}'));
      if (answer === 'drop') return void res.socket?.destroy();
      if (answer !== undefined) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      const forward = httpRequest({ host: '127.0.0.1', port, path: req.url, method: req.method, headers: req.headers }, (reply) => {
        res.writeHead(reply.statusCode ?? 502, reply.headers);
        reply.pipe(res);
      });
      forward.on('error', () => res.socket?.destroy());
      forward.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

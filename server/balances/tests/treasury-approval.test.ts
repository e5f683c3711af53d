// Issue 33 item 5, a swap's approval that timed out, on the dev chain: the node in front of anvil
// first loses the approval (the connection cut, nothing reaches anvil), then takes it and loses
// the answer (mined, the sender told nothing). The approval was recorded on the swap before it
// was first sent, is sent again as recorded (the same transaction: its hash and nonce), mined
// once, its gas journaled once, and the swap then completes with nothing left to the router.
// On the code before it, a timed-out approval was neither recorded nor sent again.
// One anvil for the file, back to its deployment (evm_revert) for each database kind.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, erc20Abi, http, keccak256, parseTransaction, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { deployDevContracts, devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller, rpcProxy, until, type RpcCall } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;
const APPROVE = '0x095ea7b3';
let chain: DevChain;
let contracts: DevContracts;
let proxy: Awaited<ReturnType<typeof rpcProxy>>;
let snapshot: string | undefined;
/**
 * What the node in front of anvil does with the treasury's approvals: passes them, or (`lost`)
 * loses every one sent in the first 3 s (the first tick's send and its client's own retries,
 * while the tick waits 5 s for it to be mined) and then takes each but loses the answer.
 */
let approvals: 'lost' | 'pass' = 'pass';
/** Each approval the treasury sent, by hash, and what became of it. */
const sent: Array<{ hash: string; nonce: number; at: number; fate: 'lost' | 'answer lost' }> = [];

const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
const anvil = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });

beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  contracts = await deployDevContracts(chain, 3, '1000000', { pools: true });
  proxy = await rpcProxy(chain.url, async (body) => {
    const calls = [body].flat() as RpcCall[];
    const raw = calls.length === 1 && calls[0]!.method === 'eth_sendRawTransaction' ? (calls[0]!.params?.[0] as Hex) : undefined;
    if (!raw || approvals === 'pass') return undefined;
    const tx = parseTransaction(raw);
    if (!tx.data?.startsWith(APPROVE)) return undefined;
    const fate = sent.length && Date.now() - sent[0]!.at > 3_000 ? 'answer lost' : 'lost';
    sent.push({ hash: keccak256(raw), nonce: tx.nonce!, at: Date.now(), fate });
    if (fate === 'answer lost') await anvil('eth_sendRawTransaction', [raw]).catch(() => undefined);
    return 'drop';
  });
}, 120_000);
afterAll(async () => {
  await proxy?.close();
  await chain?.stop();
});

describe.each(ONLY_PGLITE)("a swap's approval that timed out, on %s", { timeout: 120_000 }, (kind) => {
  let api: Service;
  beforeAll(async () => {
    if (snapshot) expect(await anvil('evm_revert', [snapshot])).toBe(true);
    snapshot = (await anvil('evm_snapshot')) as string;
    sent.length = 0;
    approvals = 'pass';
    api = await startService({
      demo: true,
      networks: { test: { ...devNetwork(proxy.url, contracts, 1) } },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      sweepIntervalMs: 300,
      jobIntervalMs: 200,
      ...(await databaseOptions(kind)),
    });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });
  const call = caller(() => api.url);
  const server = (method: string, path: string, body?: unknown) => call(method, path, body, secretKey);
  const available = async (coin: string) =>
    ((await server('GET', '/api/v1/balances')).body.data as Array<{ coin: string; available: string }>).find((l) => l.coin === coin)?.available ?? '0';

  it('is recorded before it is sent, sent again as recorded until mined, mined once, its gas journaled once; the swap completes', async () => {
    expect((await server('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
    await call('POST', '/api/v1/transaction/initialize', { reference: 'approve-1', coin: 'USDC', currency: 'USD', amount: 20 });
    await call('POST', '/api/v1/sandbox/deposit', { reference: 'approve-1', kind: 'exact' });
    await until('the USDC journaled', async () => (await available('USDC')) === '20', 30_000);
    const startNonce = await reader().getTransactionCount({ address: treasury });

    approvals = 'lost';
    const quote = (await server('POST', '/api/v1/swaps/quote', { from: 'USDC', to: 'USDT', amount: '10' })).body.data;
    expect((await server('POST', '/api/v1/swaps', { quote_id: quote.id })).status).toBe(201);
    // Lost on its way: the node never had it, yet the swap holds it already, recorded before the send.
    const first = await until('the approval sent and lost', async () => sent[0], 20_000, 50);
    const [row] = await api.db.query(`SELECT approve_tx_hash, approve_nonce, tx_hash FROM swaps WHERE id = $1`, [quote.id]);
    expect([row!.approve_tx_hash, Number(row!.approve_nonce), row!.tx_hash]).toEqual([first.hash, startNonce, null]);
    expect(
      await reader()
        .getTransaction({ hash: first.hash as Hex })
        .catch(() => undefined),
    ).toBeUndefined();

    // Sent again by a later tick, taken by the node, the answer lost: the sender finds it mined.
    const done = await until(
      'swap completed',
      async () => {
        const s = (await server('GET', `/api/v1/swaps/${quote.id}`)).body.data;
        return s.status === 'completed' || s.status === 'failed' ? s : false;
      },
      60_000,
    );
    approvals = 'pass';
    expect(done.status).toBe('completed');
    // Every send was the one recorded transaction: the same hash, at the same nonce.
    expect(sent.some((s) => s.fate === 'lost') && sent.some((s) => s.fate === 'answer lost')).toBe(true);
    expect(new Set(sent.map((s) => `${s.hash}@${s.nonce}`))).toEqual(new Set([`${first.hash}@${startNonce}`]));
    const approval = await reader().getTransactionReceipt({ hash: first.hash as Hex });
    expect(approval.status).toBe('success');
    console.log(
      `an approval lost ${sent.filter((s) => s.fate === 'lost').length} time(s), its answer lost ${sent.filter((s) => s.fate === 'answer lost').length}: mined once, ${approval.gasUsed} gas`,
    );
    // Mined once: the treasury sent two transactions in all, the approval and the swap after it.
    expect(await reader().getTransactionCount({ address: treasury })).toBe(startNonce + 2);
    expect((await reader().getTransaction({ hash: done.tx_hash as Hex })).nonce).toBe(startNonce + 1);
    expect(await reader().readContract({ address: contracts.tokens.USDC, abi: erc20Abi, functionName: 'allowance', args: [treasury, contracts.router!] })).toBe(
      0n,
    );
    // Its gas journaled once, beside the swap's.
    const gas = await api.db.query(`SELECT ref FROM journal_entries WHERE kind = 'gas' AND memo LIKE $1 ORDER BY ref`, [`%${quote.id}%`]);
    expect(gas.map((g) => g.ref).sort()).toEqual([`31337/${first.hash.toLowerCase()}`, `31337/${(done.tx_hash as string).toLowerCase()}`].sort());
    expect(await available('USDC')).toBe('10');
    expect(await available('USDT')).toBe(done.amount_received);
  });
});

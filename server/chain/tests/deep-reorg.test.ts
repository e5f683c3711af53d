// Issue 33 item 1, rehearsed on a real anvil: a payment on balance settlement counted, swept and
// journaled; the chain reorganised behind it (the payer's transaction gone for good, 40 blocks
// mined on the other branch, deeper than the confirmations); the service detects it, reverses
// the deposit in the journal by a balancing entry, tells the merchant (DEPOSIT_REVERSED) and the
// operator (/readyz degraded naming the chain, /metrics held vs owed, the operator's events),
// holds withdrawals on the chain (409 treasury_held) until the operator resolves it, who and why
// kept. On the code before it: 40 s later the balance still had the money, /readyz was 200 and a
// withdrawal of it was accepted. On PGlite alone (chain logic on one instance), one anvil for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, http, parseUnits, type Address, type Hex, type PublicClient } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { deployDevContracts, devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller, rpcProxy, until } from '../../testing/chain.ts';
import { reverseDeepReorganisations } from '../treasury-reconcile.ts';
import { createLogger } from '../../service/log.ts';
import { runTreasuryCommand } from '../../commands/treasury.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const ADMIN_TOKEN = 'op_' + 'i33'.repeat(14);
const wallet = devAccount(9).address;
let chain: DevChain;
let contracts: DevContracts;
let api: Service;

// One anvil for the file, put back to its deployment (evm_revert) for each database kind.
let deployed: string | undefined;
beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  contracts = await deployDevContracts(chain, 3, '1000000');
}, 120_000);
afterAll(async () => {
  await chain?.stop();
});

const call = caller(() => api.url);
const server = (method: string, path: string, body?: unknown) => call(method, path, body, secretKey);
const operator = async (method: string, path: string, body?: unknown) => {
  const response = await fetch(api.url + path, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, text: await response.text() };
};
/** `npm run service -- treasury …` against the running service, as the operator runs it: its exit code and what it printed. */
const command = async (...args: string[]) => {
  const lines: string[] = [];
  const code = await runTreasuryCommand(
    args,
    { serviceUrl: api.url, adminToken: ADMIN_TOKEN, stateDir: '' },
    (line) => lines.push(line),
    (line) => lines.push(line),
  );
  return { code, text: lines.join('\n') };
};
const rpc = (method: string, params: unknown[] = []) =>
  createPublicClient({ chain: foundry, transport: http(chain.url) }).request({ method: method as 'eth_blockNumber', params: params as never });
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
const available = async () =>
  ((await server('GET', '/api/v1/balances')).body.data as Array<{ coin: string; available: string }>).find((l) => l.coin === 'USDT')?.available ?? '0';
const readyz = async () => {
  const response = await fetch(api.url + '/readyz');
  return { status: response.status, body: (await response.json()) as { message: string; data: Array<{ name: string; ok: boolean; detail: string }> } };
};

/** A payment of `amount` USD in USDT, paid by the sandbox's payer on the chain, until it is in the balance. */
async function paid(reference: string, amount: number, before: string) {
  await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount });
  await call('POST', '/api/v1/sandbox/deposit', { reference, kind: 'exact' });
  return until(`${reference} journaled`, async () => ((await available()) !== before ? available() : false), 30_000);
}

describe.each(ONLY_PGLITE)('on %s', (kind) => {
  beforeAll(async () => {
    if (deployed) expect(await rpc('evm_revert', [deployed])).toBe(true);
    deployed = (await rpc('evm_snapshot')) as unknown as string;
    api = await startService({
      demo: true,
      adminToken: ADMIN_TOKEN,
      networks: { test: devNetwork(chain.url, contracts, 2) },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      sweepIntervalMs: 300,
      jobIntervalMs: 200,
      treasuryReconcileIntervalMs: 250,
      ...(await databaseOptions(kind)),
    });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('a reorganisation deeper than the confirmations: detected, reversed, told, withdrawals held, the operator resolves', { timeout: 120_000 }, async () => {
    expect((await server('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
    // A first payment that stays: the merchant's own money, which a withdrawal may take.
    const first = await paid('stays', 10, '0');
    const snapshot = await rpc('evm_snapshot');
    // The second, counted, swept and journaled: then the chain forgets it.
    const both = await paid('goes', 100, first);
    expect(parseUnits(both, 18) - parseUnits(first, 18)).toBeGreaterThanOrEqual(parseUnits('100', 18));
    await until('the treasury agrees with the journal', async () => (await readyz()).status === 200);
    const payment = (await server('GET', '/api/v1/transaction/verify/goes')).body.data;
    expect(payment.status).toMatch(/confirmed|paid|success/);
    // The payer's two transactions (the sandbox mints itself the amount, then sends it), kept to be
    // mined again after the reorganisation, as anyone holding them may.
    const counted = (await api.parts.chain.transfers(31337)).find((t) => t.recipient === String(payment.address).toLowerCase())!;
    const sent = (await rpc('eth_getTransactionByHash', [counted.txHash])) as unknown as { from: string; nonce: string; blockNumber: string };
    const minted = await findSent(sent.from, Number(sent.nonce) - 1, BigInt(sent.blockNumber));
    const togetherBefore = ((await rpc('eth_getTransactionByHash', [minted])) as unknown as { blockNumber: string }).blockNumber === sent.blockNumber;
    const raws = [await rpc('eth_getRawTransactionByHash', [minted]), await rpc('eth_getRawTransactionByHash', [counted.txHash])] as unknown as string[];

    // The reorganisation: back before the payment, then 40 blocks on the other branch.
    await rpc('evm_revert', [snapshot]);
    await rpc('anvil_mine', ['0x28']);
    const reorganised = performance.now();
    const degraded = await until(
      'readyz degraded',
      async () => {
        const ready = await readyz();
        return ready.status === 503 && ready.body.data.some((c) => c.name === 'money movements on chain 31337' && !c.ok) ? ready : false;
      },
      30_000,
      50,
    );
    const alertMs = Math.round(performance.now() - reorganised);
    console.log(`time from reorganisation to alert (readyz 503, money movements held): ${alertMs} ms`);
    expect(degraded.body.message).toMatch(/chain 31337/);

    // Reversed by a balancing entry: the deposit's entry stays, the reversal beside it.
    // (Reversed at a second look, the chain grown: the first may have held the chain already, the treasury short of what it owed.)
    const reversal = await until(
      'reversed',
      async () => (await api.parts.journal.entries(DEMO_MERCHANT.id)).find((e) => e.kind === 'deposit_reversed'),
      30_000,
      50,
    );
    const entries = await api.parts.journal.entries(DEMO_MERCHANT.id);
    const reversedMs = Math.round(performance.now() - reorganised);
    console.log(`time from reorganisation to reversal (a second look): ${reversedMs} ms`);
    expect(entries.some((e) => e.kind === 'deposit' && e.ref === reversal!.ref)).toBe(true);
    expect(await until('the balance back to the first payment', async () => ((await available()) === first ? first : false))).toBe(first);
    // The treasury holds what the journal owes again, and /metrics says so per chain and coin.
    const usdt = contracts.tokens.USDT.toLowerCase();
    await until('a reconciliation after the reversal', async () =>
      (await api.parts.treasuryHolds.findings()).find((f) => f.token === usdt && f.short === 0n && f.owed === parseUnits(first, 18)),
    );
    const metrics = (await operator('GET', '/metrics')).text;
    expect(metrics).toMatch(/service_treasury_held\{chain="31337",coin="USDT"\} 10(\.\d+)?\n/);
    expect(metrics).toMatch(/service_treasury_owed\{chain="31337",coin="USDT"\} 10(\.\d+)?\n/);

    // Told: the merchant's DEPOSIT_REVERSED, and the operator's events.
    const told = await until('DEPOSIT_REVERSED', async () =>
      ((await server('GET', '/api/v1/events')).body.data as Array<{ type: string; payload: { data: { reference: string } } }>).find(
        (e) => e.type === 'DEPOSIT_REVERSED',
      ),
    );
    expect(told.payload.data.reference).toBe('goes');
    const shown = await command('status', '--json');
    expect(shown.code).toBe(0);
    const status = JSON.parse(shown.text);
    expect(status.events.map((e: { kind: string }) => e.kind)).toContain('deep_reorganisation');
    expect(status.holds).toEqual([expect.objectContaining({ chain_id: 31337 })]);

    // Held: a withdrawal the balance covers is refused, naming the reason.
    const refused = await server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: wallet, amount: '1' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('treasury_held');
    expect(refused.body.message).toMatch(/held by the operator/);
    // Issue 35's attack: a refund of the payment whose money the reorganisation took away, paid
    // out of what the balance holds of the merchant's other payment. Refused, and nothing moves.
    const refund = { reference: 'goes', amount: '5', reason: 'customer asked', address: devAccount(12).address };
    const heldRefund = await server('POST', '/api/v1/refunds', refund);
    expect([heldRefund.status, heldRefund.body.code]).toEqual([409, expect.stringMatching(/treasury_held|nothing_received/)]);

    // The operator resolves it, saying who and why; the withdrawal goes through.
    expect(await command('resolve', '--chain', '31337', '--by', 'ops on call')).toMatchObject({ code: 2, text: expect.stringMatching(/--why/) });
    const resolved = await command(
      'resolve',
      '--chain',
      '31337',
      '--by',
      'ops on call',
      '--why',
      'payment goes reorganised away; reversed in the journal, merchant told',
      '--json',
    );
    expect(resolved.code).toBe(0);
    expect(JSON.parse(resolved.text)).toMatchObject({ resolved_by: 'ops on call', reason: expect.any(String) });
    expect(await command('resolve', '--chain', '31337', '--by', 'x', '--why', 'y')).toMatchObject({
      code: 1,
      text: expect.stringMatching(/404.*no money movements are held on chain 31337/),
    });
    // Resolved, the refund is still refused: the payment received nothing that is still on the chain.
    const afterResolve = await server('POST', '/api/v1/refunds', refund);
    expect([afterResolve.status, afterResolve.body.code, afterResolve.body.errors?.[0]?.field]).toEqual([409, 'nothing_received', 'reference']);
    expect(await available()).toBe(first);
    expect((await api.db.query(`SELECT count(*)::int AS n FROM refunds`))[0]!.n).toBe(0);
    expect((await api.parts.journal.entries(DEMO_MERCHANT.id)).filter((e) => e.kind === 'withdrawal_reserved')).toEqual([]);
    const accepted = await server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: wallet as Address, amount: '1' });
    expect(accepted.status).toBe(201);
    await until('readyz ready again', async () => (await readyz()).status === 200, 30_000);
    const afterWithdrawal = parseUnits(first, 18) - parseUnits('1', 18);
    await until(
      'the withdrawal completed',
      async () =>
        parseUnits(await available(), 18) === afterWithdrawal &&
        (await server('GET', `/api/v1/withdrawals/${accepted.body.data.id}`)).body.data.status === 'completed',
    );

    // The payer's transactions mined again after the reversal: the money is in the treasury again
    // and the merchant's again, journaled once more beside the reversal (it was left out, the
    // treasury holding 100 USDT more than the journal owed, until the operator credited it by hand).
    // Mined as they were (in one block, or each in its own), so that the transfer's event has its
    // log index again: the same transfer (chain, transaction, log index) as the one reversed.
    await rpc('evm_setIntervalMining', [0]);
    for (const raw of raws) {
      await rpc('eth_sendRawTransaction', [raw]);
      if (!togetherBefore || raw === raws[1]) await rpc('evm_mine');
    }
    await rpc('evm_setIntervalMining', [1]);
    expect((await reader().getTransactionReceipt({ hash: counted.txHash as Hex })).logs.find((l) => l.address.toLowerCase() === usdt)?.logIndex).toBe(
      counted.logIndex,
    );
    const back = await until(
      'the deposit journaled again',
      async () => (parseUnits(await available(), 18) === afterWithdrawal + parseUnits(both, 18) - parseUnits(first, 18) ? available() : false),
      30_000,
    );
    const again = (await api.parts.journal.entries(DEMO_MERCHANT.id)).filter((e) => e.ref.startsWith(reversal!.ref));
    expect(again.map((e) => [e.kind, e.ref])).toEqual(
      expect.arrayContaining([
        ['deposit', reversal!.ref],
        ['deposit_reversed', reversal!.ref],
        ['deposit', `${reversal!.ref}#1`],
      ]),
    );
    expect(again.length).toBe(3);
    expect((await server('GET', '/api/v1/transaction/verify/goes')).body.data.amountPaid).toBe(100);
    const agrees = await until('the treasury agrees again', async () =>
      (await api.parts.treasuryHolds.findings()).find((f) => f.token === usdt && f.atBlock > 0n && f.owed === parseUnits(back, 18) && f.short === 0n),
    );
    expect(agrees.held).toBe(agrees.owed);
    expect((await readyz()).status).toBe(200);

    // A second look before a reversal: a node that answers the transfer's block once from a branch
    // of its own, without its receipt, reverses nothing (it was reversed at that one look before);
    // the next look finds it on the chain and forgets it.
    let lying = true;
    const block = `0x${(await reader().getTransactionReceipt({ hash: counted.txHash as Hex })).blockNumber.toString(16)}`;
    const node = await rpcProxy(chain.url, async (body) => {
      if (Array.isArray(body) || !lying) return undefined;
      if (body.method === 'eth_getTransactionReceipt') return { jsonrpc: '2.0', id: body.id, result: null };
      if (body.method === 'eth_getBlockByNumber' && body.params?.[0] === block)
        return {
          jsonrpc: '2.0',
          id: body.id,
          result: { ...((await rpc('eth_getBlockByNumber', [block, false])) as unknown as object), hash: `0x${'ab'.repeat(32)}` },
        };
      return undefined;
    });
    try {
      const deps = {
        holds: api.parts.treasuryHolds,
        journal: api.parts.journal,
        treasuryTxs: api.parts.treasuryTxs,
        log: createLogger('silent'),
        now: Date.now,
        holdThreshold: '0',
      };
      const network = devNetwork(node.url, contracts, 2);
      const through = createPublicClient({ chain: foundry, transport: http(node.url) }) as PublicClient;
      expect(await reverseDeepReorganisations(network, deps, through)).toBe(0);
      expect(await available()).toBe(back);
      expect((await api.parts.treasuryHolds.holds()).active).toEqual([]);
      lying = false;
      expect(await reverseDeepReorganisations(network, deps, through)).toBe(0);
    } finally {
      await node.close();
    }
    expect(await available()).toBe(back);
  });
});

/** The hash of `from`'s transaction of `nonce`, in the blocks up to `upTo`. */
async function findSent(from: string, nonce: number, upTo: bigint): Promise<string> {
  for (let n = upTo; n >= 0n && n > upTo - 10n; n--) {
    const block = (await rpc('eth_getBlockByNumber', [`0x${n.toString(16)}`, true])) as unknown as {
      transactions: Array<{ hash: string; from: string; nonce: string }>;
    };
    const tx = block.transactions.find((t) => t.from.toLowerCase() === from.toLowerCase() && Number(t.nonce) === nonce);
    if (tx) return tx.hash;
  }
  throw new Error(`no transaction of ${from} at nonce ${nonce}`);
}

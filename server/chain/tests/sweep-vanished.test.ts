// On a real anvil: a deposit on balance settlement swept into the treasury,
// the sweep final and journaled; then a reorganisation deeper than the confirmations takes the
// sweep away (its raw transaction not sent again by anyone: the service's next sweep takes the
// gas wallet's nonce, the very same transaction when its fees come out the same). Before: detected (readiness 503, `treasury_short`, withdrawals 409 `treasury_held`)
// and never repaired: the sweep stayed final, the deposit held the money, and every merchant on
// the chain stayed frozen until someone swept it by hand and resolved the hold (this test timed
// out waiting for the sweep again on the code before it). Now the sweeper looks at final sweeps
// again, sweeps the deposit again, the hold lifts itself once the new sweep is final and the
// treasury holds what the journal owes, and withdrawals work again; the deposit is journaled
// once. The service's own jobs, on PGlite alone (chain logic on one instance), one anvil for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { deployDevContracts, devAccount, devNetwork, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { caller, until } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const CONFIRMATIONS = 3;
const owner = { merchant: DEMO_MERCHANT, mode: 'test' } as never;
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
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
const rpc = (method: string, params: unknown[] = []) => reader().request({ method: method as 'eth_blockNumber', params: params as never });
const onChain = (who: Address) => reader().readContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'balanceOf', args: [who] });
const usdt = () => contracts.tokens.USDT.toLowerCase();
const balance = async () => (await api.parts.journal.balances(owner, Date.now())).find((l) => l.token === usdt()) ?? { available: 0n, pending: 0n };
const readyz = async () => {
  const response = await fetch(api.url + '/readyz');
  return { status: response.status, body: (await response.json()) as { message: string; data: Array<{ name: string; ok: boolean; detail: string }> } };
};
const held = async () => (await readyz()).body.data.find((c) => c.name === 'money movements on chain 31337' && !c.ok);

/** Pays `amount` USDT to a new payment's deposit address from dev account 1; answers the address and the transfer's receipt. */
async function pay(reference: string, amount: string) {
  const made = await server('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDT', currency: 'USD', amount: Number(amount) });
  const to = made.body.data.address as Address;
  const customer = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
  const receipt = await reader().waitForTransactionReceipt({
    hash: await customer.writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits(amount, 18)] }),
    pollingInterval: 50,
  });
  return { to, receipt };
}

describe.each(ONLY_PGLITE)('on %s', (kind) => {
  beforeAll(async () => {
    if (deployed) expect(await rpc('evm_revert', [deployed])).toBe(true);
    deployed = (await rpc('evm_snapshot')) as unknown as string;
    api = await startService({
      demo: true,
      networks: { test: devNetwork(chain.url, contracts, CONFIRMATIONS) },
      devChain: DEV_CHAIN_POWERS,
      watchIntervalMs: 100,
      sweepIntervalMs: 300,
      jobIntervalMs: 200,
      treasuryReconcileIntervalMs: 250,
      ...(await databaseOptions(kind)),
    });
  }, 120_000);
  afterAll(async () => {
    await rpc('evm_setIntervalMining', [1]).catch(() => undefined);
    await api?.close();
  });

  it('a final sweep taken away by a deep reorganisation: swept again, the hold appears and lifts itself, withdrawals work', { timeout: 120_000 }, async () => {
    expect((await server('PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
    const treasury = devNetwork(chain.url, contracts).treasury!;
    // A first payment, swept and journaled: the merchant's money a withdrawal may take later.
    await pay('stays', '10');
    await until('the first deposit journaled', async () => (await balance()).available === parseUnits('10', 18), 30_000);

    // The second: paid, then the chain as it is now kept (the payment in it, not yet swept).
    const { to, receipt: paid } = await pay('sweep-goes', '20');
    const snapshot = await rpc('evm_snapshot');
    await until('the second deposit swept, final and journaled', async () => (await balance()).available === parseUnits('30', 18), 30_000, 50);
    const swept = (await api.parts.chain.transfers(31337)).find((t) => t.txHash === paid.transactionHash)!;
    expect(swept.sweptHash).toMatch(/^0x/);
    const sweepBlock = (await reader().getTransactionReceipt({ hash: swept.sweptHash as Hex })).blockNumber;
    expect(sweepBlock).toBeGreaterThan(paid.blockNumber);
    expect(await onChain(to)).toBe(0n);
    await until('the treasury agrees with the journal', async () => (await readyz()).status === 200);

    // The reorganisation: back to the payment's block, past the sweep's confirmations. The chain
    // mines on without the sweep; its transaction is not mined again (mining stopped a while,
    // then blocks made empty past the sweep's old block, so the sweeper's look finds it gone).
    await rpc('evm_setIntervalMining', [0]);
    expect(await rpc('evm_revert', [snapshot])).toBe(true);
    const reverted = await reader().getBlockNumber();
    expect(reverted).toBeLessThan(sweepBlock);
    expect(await onChain(to)).toBe(parseUnits('20', 18)); // the money never left the deposit on this branch
    await rpc('anvil_mine', [`0x${(sweepBlock - reverted + BigInt(CONFIRMATIONS)).toString(16)}`]);
    const reorganised = performance.now();
    expect(
      await reader()
        .getTransactionReceipt({ hash: swept.sweptHash as Hex })
        .catch(() => undefined),
    ).toBeUndefined();

    // Found: the treasury is short of the swept deposit, the chain held, a withdrawal refused.
    const degraded = await until('money movements held', held, 30_000, 50);
    expect(degraded.detail).toMatch(/treasury_short/);
    expect(degraded.detail).toMatch(/lifts itself once the treasury holds what the journal owes/);
    const refused = await server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: devAccount(9).address, amount: '1' });
    expect([refused.status, refused.body.code]).toEqual([409, 'treasury_held']);
    // The sweeper found the sweep gone and the deposit still holding the money: swept again (sent,
    // waiting to be mined). The balance shows the money once: available, not pending too.
    await until(
      'the deposit unswept and swept again',
      async () => {
        const now = (await api.parts.chain.transfers(31337)).find((t) => t.txHash === paid.transactionHash)!;
        const gas = DEV_CHAIN_POWERS.gasAccount.address;
        const waiting = (await reader().getTransactionCount({ address: gas, blockTag: 'pending' })) > (await reader().getTransactionCount({ address: gas }));
        return now.sweptHash === undefined && waiting;
      },
      30_000,
      50,
    );
    const resweptMs = Math.round(performance.now() - reorganised);
    expect(await balance()).toMatchObject({ available: parseUnits('30', 18), pending: 0n });
    const told = await until('the operator told of the vanished sweep', async () =>
      (await api.parts.treasuryHolds.events()).find((e) => e.kind === 'sweep_vanished'),
    );
    expect(told.detail).toContain(swept.sweptHash);
    expect(told.detail).toMatch(/swept again/);

    // The new sweep mined, not yet final: the treasury holds what the journal owes, and the hold
    // stays (that sweep may still go as the first did).
    await rpc('evm_mine');
    const mined = await reader().getBlockNumber();
    await until(
      'a look after the new sweep landed',
      async () => (await api.parts.treasuryHolds.findings()).find((f) => f.token === usdt() && f.atBlock >= mined && f.short === 0n),
      30_000,
      50,
    );
    expect(await held()).toBeDefined();
    // Mining again: the new sweep becomes final; the hold lifts itself.
    await rpc('evm_setIntervalMining', [1]);
    const lifted = await until('the hold lifted by itself', async () => ((await held()) ? false : (await readyz()).status === 200), 60_000, 50);
    expect(lifted).toBe(true);
    console.log(
      `on ${kind}: from the reorganisation to the sweep again ${resweptMs} ms; to the hold lifted (the new sweep final, ${CONFIRMATIONS} confirmations at 1 s a block) ${Math.round(performance.now() - reorganised)} ms`,
    );
    const again = (await api.parts.chain.transfers(31337)).find((t) => t.txHash === paid.transactionHash)!;
    expect(again.sweptHash).toMatch(/^0x/);
    // Mined on the new branch (at the gas wallet's same nonce: with the same fees, it is the very same transaction and hash).
    const resweep = await reader().getTransactionReceipt({ hash: again.sweptHash as Hex });
    expect(resweep.status).toBe('success');
    expect(resweep.blockNumber).toBeGreaterThan(sweepBlock);
    expect(await onChain(to)).toBe(0n);
    const holds = await api.parts.treasuryHolds.holds();
    expect(holds.active).toEqual([]);
    expect(holds.resolved[0]).toMatchObject({ chainId: 31337, reason: 'treasury_short', resolvedBy: 'service' });
    const kinds = (await api.parts.treasuryHolds.events()).map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['sweep_vanished', 'treasury_short', 'hold', 'hold_cleared']));

    // The journal: the deposit entry once (the sweep's movement not recorded twice), balanced.
    const entries = (await api.parts.journal.entries(DEMO_MERCHANT.id)).filter((e) => e.kind === 'deposit');
    expect(entries.filter((e) => e.ref === `31337/${paid.transactionHash}/${swept.logIndex}`)).toHaveLength(1);
    expect(entries).toHaveLength(2);
    for (const s of await api.parts.journal.journalSums()) expect(s.sum).toBe(0n);
    // The treasury equals the journal, to the base unit.
    const sums = await api.parts.journal.held(31337, usdt());
    expect(await onChain(treasury)).toBe(sums.merchants + sums.fees + sums.payable);

    // Withdrawals work again.
    const accepted = await server('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: devAccount(9).address, amount: '1' });
    expect(accepted.status).toBe(201);
    await until(
      'the withdrawal completed',
      async () => (await server('GET', `/api/v1/withdrawals/${accepted.body.data.id}`)).body.data.status === 'completed',
      30_000,
    );
    await until('the treasury agrees after the withdrawal', async () => {
      const f = (await api.parts.treasuryHolds.findings()).find((x) => x.token === usdt());
      return f && f.short === 0n && f.held === f.owed && f.held === parseUnits('29', 18);
    });
    expect(await onChain(devAccount(9).address)).toBe(parseUnits('1', 18));
    expect((await readyz()).status).toBe(200);
  });
});

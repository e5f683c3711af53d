// Self-repair where it is safe: a `treasury_short` hold lifts itself at the first look
// that finds no token short (kept resolved by `service`, the operator's event `hold_cleared`, the
// log); a hold of any other cause (a deep reorganisation), or a shortfall's hold that such a cause
// took over, waits for the operator, and readiness says which with the exact command. The chain
// read through a stand-in node; on PGlite.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { EXTERNAL, merchantAccount, move } from '../ledger-rules.ts';
import { databaseOptions, ONLY_PGLITE } from '../../testing/databases.ts';
import { reconcileTreasury, treasuryReadiness } from '../../chain/treasury-reconcile.ts';
import type { Network } from '../../chain/networks.ts';
import type { Logger } from '../../service/log.ts';

const USDT = '0x' + 'a7'.repeat(20);
const whole = (n: number) => BigInt(n) * 10n ** 6n;

describe.each(ONLY_PGLITE)('a treasury_short hold lifts itself once the treasury agrees, on %s', (kind) => {
  let api: Service;
  beforeAll(async () => {
    api = await startService({ demo: true, ...(await databaseOptions(kind)), jobs: false });
  }, 60_000);
  afterAll(() => api.close());

  it('lifts a shortfall hold at the first look that agrees; never a deep reorganisation hold, nor a shortfall hold one took over', async () => {
    const chainId = 7490;
    const owner = {
      merchant: await api.parts.merchants.create({ businessName: 'holds', businessEmail: `holds-${kind}@example.com`, businessLogo: '' }, Date.now()),
      mode: 'test' as const,
    };
    await api.parts.journal.post(
      api.db,
      { kind: 'sandbox_deposit', ref: `holds-${kind}`, owner, memo: 'a test' },
      move(EXTERNAL.sandbox, merchantAccount(owner.merchant.id, owner.mode, 'available'), chainId, USDT, whole(100)),
      Date.now(),
    );
    const network = {
      chainId,
      name: 'a chain',
      rpcUrls: [],
      confirmations: 1,
      factory: '0x' + 'fa'.repeat(20),
      tokens: [{ symbol: 'USDT', name: 'Tether', address: USDT, decimals: 6 }],
      treasury: '0x' + '7e'.repeat(20),
    } as unknown as Network;
    const said: string[] = [];
    const log = { info: () => {}, warn: (_: unknown, m: string) => said.push(m), error: () => {} } as unknown as Logger;
    const { journal, treasuryTxs, treasuryHolds: holds } = api.parts;
    const look = (held: bigint) =>
      reconcileTreasury(network, network.treasury!, { holds, journal, treasuryTxs, log, now: Date.now, holdThreshold: '0' }, {
        getBlockNumber: async () => 100n,
        readContract: async () => held,
        getBalance: async () => 0n,
      } as never);
    const heldCheck = async () => (await treasuryReadiness([network], holds)).find((c) => c.name === `money movements on chain ${chainId}`);

    // 40 short: held; readiness says it lifts itself, and the command if it does not.
    await look(whole(60));
    expect(await holds.active(chainId)).toMatchObject({ reason: 'treasury_short' });
    expect((await heldCheck())?.detail).toMatch(
      new RegExp(`lifts itself once the treasury holds what the journal owes .*resolve with npm run service -- treasury resolve --chain ${chainId} --by`),
    );
    // Still short: still held.
    await look(whole(99));
    expect(await holds.active(chainId)).toBeDefined();
    // The treasury agrees: lifted at that look, by the service, told.
    await look(whole(100));
    expect(await holds.active(chainId)).toBeUndefined();
    expect(await heldCheck()).toBeUndefined();
    expect((await holds.holds()).resolved.find((h) => h.chainId === chainId)).toMatchObject({
      reason: 'treasury_short',
      resolvedBy: 'service',
      resolvedWhy: expect.stringMatching(/holds what the journal owes of every token again/),
    });
    const events = () => holds.events().then((all) => all.filter((e) => e.chainId === chainId).map((e) => e.kind));
    expect(await events()).toEqual(['hold_cleared', 'hold', 'treasury_short']);
    expect(said).toContain(
      'treasury reconciliation: the treasury holds what the journal owes again; the treasury_short hold on the chain is lifted by itself, money movements resume',
    );

    // Short again, then a deep reorganisation found while held: the hold is the reorganisation's now, and waits for the operator.
    await look(whole(60));
    expect(await holds.hold(chainId, 'deep_reorganisation', 'a counted transfer left the chain', Date.now())).toBe(false);
    expect(await holds.active(chainId)).toMatchObject({
      reason: 'deep_reorganisation',
      detail: expect.stringMatching(/^a counted transfer left the chain \(held before: /),
    });
    await look(whole(100));
    expect(await holds.active(chainId)).toMatchObject({ reason: 'deep_reorganisation' });
    const detail = (await heldCheck())?.detail ?? '';
    expect(detail).not.toMatch(/lifts itself/);
    expect(detail).toMatch(new RegExp(`resolve with npm run service -- treasury resolve --chain ${chainId} --by <name> --why`));
    expect(await holds.resolve(chainId, 'alice', 'checked the reorganisation', Date.now())).toMatchObject({
      reason: 'deep_reorganisation',
      resolvedBy: 'alice',
    });

    // A deep reorganisation's own hold: never lifted by a look that agrees.
    expect(await holds.hold(chainId, 'deep_reorganisation', 'another transfer left the chain', Date.now())).toBe(true);
    await look(whole(100));
    expect(await holds.active(chainId)).toMatchObject({ reason: 'deep_reorganisation' });
  });
});

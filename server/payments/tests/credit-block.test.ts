// A block's confirmed transfers are counted in one transaction: many transfers to many
// payments all count, each once; a failure in the middle of a block leaves none of that block
// counted (no payment paid, no event, no transfer marked) and the next tick counts it whole, once.
// No chain needed: the transfers are recorded as the watcher records them, then counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { ChainStore, type SeenTransfer, type TransferState } from '../../chain/store.ts';
import { depositViews } from '../deposit-views-store.ts';
import { creditConfirmed, type PaymentCredits } from '../../chain/confirmed.ts';
import { caller, creditsOf } from '../../testing/chain.ts';

const CHAIN = 777_001;
const TOKEN = '0x' + 'ab'.repeat(20);
const OTHER = '0x' + 'cd'.repeat(20);
const PAYMENTS = 8;

describe.each(KINDS)('a block counted at once on %s', (kind) => {
  let api: Service;
  let store: ChainStore;
  beforeAll(async () => {
    api = await startService({ demo: true, jobs: false, ...(await databaseOptions(kind)) });
    store = new ChainStore(api.db, depositViews);
  }, 60_000);
  afterAll(() => api?.close());

  /** PAYMENTS open payments on CHAIN in TOKEN; their ids and expiries by reference. */
  async function payments(prefix: string) {
    const request = caller(() => api.url);
    for (let i = 0; i < PAYMENTS; i++) {
      const answer = await request(
        'POST',
        '/api/v1/transaction/initialize',
        { reference: `${prefix}-${i}`, coin: 'USDT', currency: 'USD', amount: 10 },
        DEMO_MERCHANT.keys.test.secretKey,
      );
      expect(answer.status).toBe(201);
    }
    await api.db.query(`UPDATE payments SET chain_id = $1, token = $2 WHERE reference LIKE $3`, [CHAIN, TOKEN, `${prefix}-%`]);
    return api.db.query<{ id: string; reference: string; expires_ms: string; address: string }>(
      `SELECT id::text, reference, expires_ms::text, address FROM payments WHERE reference LIKE $1 ORDER BY id`,
      [`${prefix}-%`],
    );
  }

  /** Three transfers to each payment in `block`, plus one in another token and one after the quote ran out. */
  async function recordBlock(rows: Awaited<ReturnType<typeof payments>>, block: bigint, tag: string) {
    const now = Date.now();
    const seen: Array<SeenTransfer & { state: TransferState }> = [];
    const transfer = (i: number, row: (typeof rows)[number], token: string, amount: bigint, seenMs: number) =>
      seen.push({
        chainId: CHAIN,
        txHash: `0x${tag}${String(i).padStart(64 - tag.length, '0')}`,
        logIndex: i,
        blockNumber: block,
        blockHash: `0x${'e'.repeat(63)}${tag.slice(-1)}`,
        token,
        sender: '0x' + '11'.repeat(20),
        recipient: row.address.toLowerCase(),
        amount,
        paymentId: row.id,
        seenMs,
        state: 'seen',
      });
    rows.forEach((row, p) => [0, 1, 2].forEach((k) => transfer(p * 3 + k, row, TOKEN, BigInt(1000 + p * 10 + k), now)));
    transfer(900, rows[0]!, OTHER, 5n, now);
    transfer(901, rows[1]!, TOKEN, 7n, Number(rows[1]!.expires_ms) + 1);
    await store.record(CHAIN, seen, [], { number: block, hash: null }, 0n, now);
  }

  const paid = async (prefix: string) =>
    (await api.db.query<{ paid: string }>(`SELECT paid::text FROM payments WHERE reference LIKE $1 ORDER BY id`, [`${prefix}-%`])).map((r) => BigInt(r.paid));
  const deposits = async () => Number((await api.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM events WHERE type = 'DEPOSIT_TRANSACTION'`))[0]!.n);
  const states = async (block: bigint) => (await store.transfers(CHAIN)).filter((t) => t.blockNumber === block).map((t) => t.state);
  /** What each payment gets from recordBlock's transfers in its token, before its quote ran out. */
  const due = (p: number) => BigInt(3 * 1000 + p * 30 + 3);

  it('credits every transfer of a block to its payment, once; a failure mid-block credits none of it, and the next pass counts it whole', {
    timeout: 60_000,
  }, async () => {
    const rows = await payments(`blk-${kind}`);
    await recordBlock(rows, 11n, 'b');
    await recordBlock(rows, 12n, 'c');
    const real = creditsOf(api);
    // Block 12's fourth credit fails as a lost connection would: after block 11 committed (24
    // credits) and after three of block 12's credits were written in its transaction.
    let writes = 0;
    const failing: PaymentCredits = {
      ...real,
      creditBlock: (transfers, tx) =>
        real.creditBlock(transfers, {
          ...tx,
          query: (text, params, name) => {
            if (text.includes('INSERT INTO transfers') && ++writes === PAYMENTS * 3 + 4) return Promise.reject(new Error('connection terminated'));
            return tx.query(text, params, name);
          },
        }),
    };
    const eventsBefore = await deposits();
    await expect(creditConfirmed(store, failing, CHAIN, 100n)).rejects.toThrow(/connection terminated/);
    // Block 11 counts in full; block 12, none of it: no payment paid, no event, every transfer still to count.
    expect(await paid(`blk-${kind}`)).toEqual(rows.map((_, p) => due(p)));
    expect(await deposits()).toBe(eventsBefore + PAYMENTS * 3);
    expect(await states(11n)).toEqual([...Array(PAYMENTS * 3).fill('credited'), 'unexpected', 'late']);
    expect(await states(12n)).toEqual(Array(PAYMENTS * 3 + 2).fill('seen'));

    // The next pass counts block 12 whole, and block 11 not again.
    const outcomes = await creditConfirmed(store, real, CHAIN, 100n);
    expect(outcomes.map((o) => o.outcome)).toEqual([...Array(PAYMENTS * 3).fill('credited'), 'unexpected', 'late']);
    expect(outcomes.every((o) => o.transfer.blockNumber === 12n)).toBe(true);
    expect(await paid(`blk-${kind}`)).toEqual(rows.map((_, p) => 2n * due(p)));
    expect(await deposits()).toBe(eventsBefore + PAYMENTS * 3 * 2);
    expect(await states(12n)).toEqual([...Array(PAYMENTS * 3).fill('credited'), 'unexpected', 'late']);
    const credited = await api.db.query<{ n: string }>(
      `SELECT count(*)::text AS n FROM transfers t JOIN payments p ON p.id = t.payment_id WHERE p.reference LIKE $1`,
      [`blk-${kind}-%`],
    );
    expect(Number(credited[0]!.n)).toBe(PAYMENTS * 3 * 2);
    expect(await creditConfirmed(store, real, CHAIN, 100n)).toEqual([]);
  });
});

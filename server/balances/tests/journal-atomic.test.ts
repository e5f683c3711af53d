// A journal entry goes in whole or not at all, also where the store is handed the database rather
// than a transaction (the treasury's gas, a relay's sponsored gas): a failure between the entry and
// its postings leaves nothing, so the retry writes it. Seen on CI: a sponsored-gas entry read on
// PostgreSQL with one posting of its two, when each statement committed on its own.
import { describe, expect, it } from 'vitest';
import { JournalStore } from '../journal-store.ts';
import { transferViews } from '../../chain/transfer-views-store.ts';
import { depositViews } from '../../payments/deposit-views-store.ts';
import type { Database, Sql } from '../../storage/db.ts';
import { KINDS, migratedDatabase } from '../../testing/databases.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';

/** `db`, whose second posting written fails once (the process stopped between two statements, as far as the database can tell). */
function failingSecondPosting(db: Database): Database {
  let postings = 0;
  let failed = false;
  const guard = (sql: Sql): Sql => ({
    query: async (text, params, name) => {
      if (text.startsWith('INSERT INTO postings') && ++postings === 2 && !failed) {
        failed = true;
        throw new Error('stopped between two statements');
      }
      return sql.query(text, params, name);
    },
    exec: (text) => sql.exec(text),
  });
  return { ...db, ...guard(db), transaction: (work) => db.transaction((tx) => work(guard(tx))) };
}

describe.each(KINDS)('a journal entry written from outside a transaction, on %s', (kind) => {
  it('is whole or absent: a failure between its postings leaves nothing, and the retry writes it balanced', async () => {
    const db = await migratedDatabase(kind);
    try {
      const journal = new JournalStore(failingSecondPosting(db), () => {}, { chain: transferViews, payments: depositViews });
      const owner = { merchant: { id: DEMO_MERCHANT.id }, mode: 'test' } as Parameters<JournalStore['sponsoredGas']>[0];
      const hash = `0x${'cd'.repeat(32)}`;
      await expect(journal.sponsoredGas(owner, 31337, hash, 92_583_000_000_000n, 'relay', 1)).rejects.toThrow(/between two statements/);
      expect(await db.query(`SELECT id FROM journal_entries WHERE ref = $1`, [`31337/${hash}`])).toEqual([]);
      expect(await journal.sponsoredGas(owner, 31337, hash, 92_583_000_000_000n, 'relay', 2)).toBe(true);
      const rows = await db.query<{ amount: string }>(
        `SELECT p.amount::text AS amount FROM postings p JOIN journal_entries e ON e.id = p.entry_id WHERE e.ref = $1 ORDER BY p.amount`,
        [`31337/${hash}`],
      );
      expect(rows.map((r) => r.amount)).toEqual(['-92583000000000', '92583000000000']);
      // The treasury's gas, the other entry written from outside a transaction: the same.
      const gas = new JournalStore(failingSecondPosting(db), () => {}, { chain: transferViews, payments: depositViews });
      await expect(gas.gasSpent(31337, `0x${'ef'.repeat(32)}`, 5n, 'a send', 3)).rejects.toThrow(/between two statements/);
      expect(await db.query(`SELECT id FROM journal_entries WHERE kind = 'gas'`)).toEqual([]);
      expect(await gas.gasSpent(31337, `0x${'ef'.repeat(32)}`, 5n, 'a send', 4)).toBe(true);
    } finally {
      await db.close();
    }
  });
});

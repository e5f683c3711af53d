// The payments list as an export reads it: with the list's filters (no cursor, no limit), newest
// first, a thousand at a time by keyset, at most EXPORT_MAX; each page asked for only when the
// one before has been taken (the caller writes it out first), and none once `stopped` says so.
import type { Account } from '../domain/account.ts';
import type { Payment } from './rules.ts';
import type { PaymentFilter, PaymentList } from './list-store.ts';

/** At most this many payments in one export: narrow it with from/to for more. */
export const EXPORT_MAX = 100_000;

export async function* exportPages(
  list: Pick<PaymentList, 'list'>,
  account: Pick<Account, 'merchant' | 'mode'>,
  filter: Omit<PaymentFilter, 'after' | 'limit'>,
  nowMs: number,
  stopped: () => boolean,
): AsyncGenerator<Payment[]> {
  let after: { createdMs: number; id: string } | undefined;
  for (let written = 0; written < EXPORT_MAX && !stopped(); ) {
    const rows = await list.list(account, { ...filter, after, limit: Math.min(1000, EXPORT_MAX - written) }, nowMs);
    if (rows.length === 0 || stopped()) return;
    yield rows;
    written += rows.length;
    after = { createdMs: rows.at(-1)!.createdMs, id: rows.at(-1)!.id };
  }
}

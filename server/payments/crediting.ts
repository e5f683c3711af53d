// What reaches a payment, each change in one transaction opened here: a transfer credited (once,
// only in the payment's own token, only while the quote takes money), a reorganised one taken back,
// an accepted partial payment finished with what arrived (by the customer, or by the service once
// its quote ran out), and money that cannot count told to the merchant. The rules are
// payments/rules.ts's; the SQL is the owners' stores' (payments/store.ts, the outbox), run in the
// transaction this file opens or, for a block's credits, the watcher's.
import type { Account } from '../domain/account.ts';
import { Conflict, NotFound, NotItsToken, PaymentState } from '../domain/errors.ts';
import type { EventType } from '../../contract/events.ts';
import type { ChainStore } from '../chain/store.ts';
import type { Database, Sql } from '../storage/db.ts';
import type { EventStore } from '../storage/events.ts';
import { assertCountsToward, assertSettles, assertTakesDeposits, type Payment } from './rules.ts';
import { creditKey, type ChangeReport, type PaymentStore, type TransferKey } from './store.ts';

type Owner = Pick<Account, 'merchant' | 'mode'>;

/** The owner of a payment as a job knows it: from the payment itself. */
const ownerOf = (payment: Payment): Owner => ({ merchant: { id: payment.merchantId } as Account['merchant'], mode: payment.mode as Account['mode'] });

export class Crediting {
  constructor(
    private readonly db: Database,
    private readonly payments: PaymentStore,
    private readonly events: EventStore,
    /** Money seen and still confirming holds a partial payment open: the chain's store says which. */
    private readonly chain: Pick<ChainStore, 'isConfirming' | 'confirmingPayments'>,
  ) {}

  /**
   * Credits one transfer to a payment, once: a transfer already credited (same chain,
   * hash and log index) changes nothing and answers the payment as it is, whatever the
   * payment's state now (a watcher that stopped between crediting and recording it asks
   * again). The quote's expiry is judged at `arrivedMs`, when the money reached the chain,
   * not when it had its confirmations. The outbox event is written in the same transaction.
   */
  async credit(
    account: Account,
    reference: string,
    transfer: TransferKey & { token: string; amount: (payment: Payment) => bigint },
    nowMs: number,
    report: ChangeReport,
    arrivedMs = nowMs,
  ): Promise<Payment> {
    return this.db.transaction(async (tx) => {
      const payment = await this.payments.lock(tx, account, reference);
      if (!payment) throw new NotFound(`No transaction with reference ${reference}`);
      if (await this.payments.isCredited(tx, transfer)) return payment;
      assertCountsToward(payment, transfer);
      assertTakesDeposits(payment, arrivedMs);
      const updated = await this.payments.addCredit(tx, payment.id, transfer, transfer.amount(payment), nowMs);
      if (!updated) return payment;
      await this.told(tx, account, report, updated, nowMs);
      return updated;
    });
  }

  /**
   * Credits a block's confirmed transfers in `tx`, the caller's transaction (the watcher marks
   * them there too): all of them count, or, the transaction failing, none, and the block is
   * asked again. Their payments are locked at once, in one order (two blocks never wait on each
   * other's locks); a transfer already credited answers 'credited' again and counts once; money
   * in another token is 'unexpected' and money the payment no longer takes is 'late', as
   * credit() judges them (expiry at the transfer's `arrivedMs`). One outcome per transfer, in order.
   */
  async creditBlock(
    tx: Sql,
    transfers: Array<TransferKey & { paymentId: string; token: string; amount: bigint; arrivedMs: number }>,
    nowMs: number,
    report: ChangeReport,
  ): Promise<Array<'credited' | 'late' | 'unexpected'>> {
    if (transfers.length === 0) return [];
    const payments = await this.payments.lockAll(tx, [...new Set(transfers.map((t) => t.paymentId))]);
    const credited = await this.payments.creditedAmong(tx, [...new Set(transfers.map((t) => t.txHash))]);
    const changed = new Map<string, Payment>();
    const outcomes: Array<'credited' | 'late' | 'unexpected'> = [];
    for (const t of transfers) {
      const payment = payments.get(t.paymentId);
      if (!payment) throw new NotFound(`No transaction with id ${t.paymentId}`);
      if (credited.has(creditKey(t))) {
        outcomes.push('credited');
        continue;
      }
      try {
        assertCountsToward(payment, t);
        assertTakesDeposits(payment, t.arrivedMs);
      } catch (error) {
        if (error instanceof NotItsToken) outcomes.push('unexpected');
        else if (error instanceof Conflict) outcomes.push('late');
        else throw error;
        continue;
      }
      credited.add(creditKey(t));
      outcomes.push('credited');
      const updated = await this.payments.addCredit(tx, payment.id, t, t.amount, nowMs);
      if (!updated) continue;
      payments.set(t.paymentId, updated); // a second transfer to it in this block is judged on what the first left
      changed.set(t.paymentId, updated);
      await this.events.add(tx, ownerOf(updated), report.type, report.data(updated), nowMs);
    }
    for (const payment of changed.values()) await this.payments.notify(tx, payment);
    return outcomes;
  }

  /**
   * Takes back a credited transfer whose block left the chain (a reorganisation), in one
   * transaction with the event that tells the merchant. A transfer never credited changes nothing.
   */
  async uncredit(account: Account, reference: string, transfer: TransferKey, nowMs: number, report: ChangeReport): Promise<Payment | undefined> {
    return this.db.transaction(async (tx) => {
      const payment = await this.payments.lock(tx, account, reference);
      if (!payment) return undefined;
      const updated = await this.payments.removeCredit(tx, payment.id, transfer, nowMs);
      if (!updated) return payment;
      await this.told(tx, account, report, updated, nowMs);
      return updated;
    });
  }

  /** Tells the merchant of something that changes no payment (money that could not count, a discrepancy), in its own transaction. */
  async tell(account: Owner, type: EventType, data: unknown, nowMs: number): Promise<void> {
    await this.db.transaction((tx) => this.events.add(tx, account, type, data, nowMs));
  }

  /**
   * Finishes an accepted partial payment with what arrived: a final state the merchant sees in
   * verify and, once, in a webhook. Finishing a finished payment answers it as it is.
   */
  async finish(account: Account, reference: string, nowMs: number, report: ChangeReport): Promise<Payment> {
    return this.db.transaction(async (tx) => {
      const payment = await this.payments.lock(tx, account, reference);
      if (!payment) throw new NotFound(`No transaction with reference ${reference}`);
      if (assertSettles(payment, nowMs) === 'already') return payment;
      // Money on its way (seen, not yet deep enough) would count as late once finished: wait for it.
      if (await this.chain.isConfirming(tx, payment.id))
        throw new PaymentState(`Transaction ${reference} has money on the chain still confirming; it can be finished once that counts`);
      const finished = await this.payments.markFinished(tx, payment.id, nowMs);
      await this.told(tx, account, report, finished, nowMs);
      return finished;
    });
  }

  /**
   * Finishes, one batch at a time, accepted partial payments whose quote ran out (any
   * instance). One with money still confirming (it arrived in time) waits until that counts.
   * How many it finished: none means none are left.
   */
  async finishExpired(nowMs: number, report: ChangeReport, limit = 50): Promise<number> {
    return this.db.transaction(async (tx) => {
      const due = await this.payments.expiredPartials(tx, nowMs, await this.chain.confirmingPayments(tx), limit);
      for (const payment of due) await this.told(tx, ownerOf(payment), report, await this.payments.markFinished(tx, payment.id, nowMs), nowMs);
      return due.length;
    });
  }

  /** The change's event, in the outbox, and the long polls woken: both when `tx` commits. */
  private async told(tx: Sql, owner: Owner, report: ChangeReport, payment: Payment, nowMs: number): Promise<void> {
    await this.events.add(tx, owner, report.type, report.data(payment), nowMs);
    await this.payments.notify(tx, payment);
  }
}

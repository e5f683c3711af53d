// What moves a bank payout's money, each in one transaction opened here. Its initiation, under
// the merchant's balance lock (the one withdrawals, swaps and refunds take, so none of them at
// once can overdraw it): the bank account in effect, the payout coin offered, the reference new,
// the one daily limit it shares with withdrawals, the treasury's minimum and network fee, then
// its USDT reserved from the balance and the payout and its event recorded. Its end: paid, the
// reservation is owed to the payout partner; failed, it goes back to the balance. The SQL is the
// owners' stores' (payouts/store.ts, the journal's, the withdrawals' limit, the outbox).
import { randomUUID } from 'node:crypto';
import { formatUnits } from '../../contract/money.ts';
import type { Account } from '../domain/account.ts';
import { DestinationPending, NotConfigured, ReferenceInUse } from '../domain/errors.ts';
import { auditedTransaction } from '../storage/audit.ts';
import type { Database } from '../storage/db.ts';
import type { EventStore } from '../storage/events.ts';
import { applyDue } from '../storage/destination-changes.ts';
import type { JournalStore } from '../balances/journal-store.ts';
import type { WithdrawalStore } from '../balances/withdrawal-store.ts';
import { reserveFromBalance } from '../balances/use-cases.ts';
import {
  checkWithdrawalLimit,
  configuredUnits,
  FEES,
  LIMIT_DECIMALS,
  merchantAccount,
  move,
  PAYOUT_PAYABLE,
  sendFee,
  usdCentsOf,
  WITHDRAWAL_WINDOW_MS,
  type Posting,
} from '../balances/ledger-rules.ts';
import { PAYOUT_COIN, PAYOUT_DECIMALS, fiatCentsOf, type Payout, type PayoutStatus } from './rules.ts';
import { payoutView, type PayoutCoin, type PayoutStore, type StoredPayout } from './store.ts';

/** Payout units (micro-USDT) in the token's base units; a token with fewer than 6 decimals cannot carry them. */
const tokenUnits = (units: bigint, coin: PayoutCoin) => units * 10n ** BigInt(coin.decimals - PAYOUT_DECIMALS);

/** A payout asked for, as the route checked it; `rate` the bank currency's, `usdPerCoin` what the coin is worth for the daily limit. */
export interface PayoutRequest {
  bankId: string;
  units: bigint;
  reference: string | undefined;
  metadata: Record<string, unknown> | null;
  rate?: string;
  usdPerCoin: bigint;
}

export class PayoutMoves {
  constructor(
    private readonly db: Database,
    private readonly stores: { payouts: PayoutStore; journal: JournalStore; events: EventStore; withdrawals: WithdrawalStore },
    private readonly coinOf: (mode: string) => PayoutCoin | undefined,
    /** How long a live key's new bank account waits before it is paid to (the operator's delay). */
    private readonly destinationDelayMs: number,
  ) {}

  async initiate(account: Account, request: PayoutRequest, nowMs: number, report: (payout: Payout) => unknown): Promise<Payout> {
    const { payouts, journal, events, withdrawals } = this.stores;
    await applyDue(this.db, account.merchant.id, account.mode, nowMs);
    return auditedTransaction(this.db, async (tx) => {
      await journal.lock(tx, account);
      const bank = await payouts.bank(account, request.bankId, tx);
      if (bank.effectiveAt && Date.parse(bank.effectiveAt) > nowMs) {
        throw new DestinationPending(
          `payout_bank_id: bank account ${bank.id} is new and is paid to only from ${bank.effectiveAt} (live keys' new bank accounts wait ${Math.round(this.destinationDelayMs / 60_000)} minutes, so the owner can cancel one they did not add)`,
          [{ field: 'payout_bank_id', message: `expected a bank account in effect; this one is from ${bank.effectiveAt}` }],
        );
      }
      const coin = this.coinOf(account.mode);
      if (!coin || coin.decimals < PAYOUT_DECIMALS)
        throw new NotConfigured(`Bank payouts are not available: the ${account.mode} network has no ${PAYOUT_COIN} of at least ${PAYOUT_DECIMALS} decimals`);
      const reference = request.reference ?? 'po_' + randomUUID().replaceAll('-', '').slice(0, 20);
      const taken = await payouts.referenceTaken(tx, account, reference);
      // Named, so a retry without an Idempotency-Key can find what its first try made.
      if (taken)
        throw new ReferenceInUse(`reference: a payout with reference ${reference} exists already: ${taken} (GET /api/v1/bank/payouts/withdrawals/${taken})`, [
          { field: 'reference', message: 'expected a new reference' },
        ]);
      // A bank payout leaves the balance as a withdrawal does: one daily limit, in US dollars, holds both.
      const usdCents = usdCentsOf(request.units, PAYOUT_DECIMALS, request.usdPerCoin);
      const limit = configuredUnits((await withdrawals.withdrawalLimit(account, tx)).daily, LIMIT_DECIMALS);
      checkWithdrawalLimit(usdCents, limit, await withdrawals.spentSince(tx, account, nowMs - WITHDRAWAL_WINDOW_MS), {
        symbol: PAYOUT_COIN,
        text: formatUnits(request.units, PAYOUT_DECIMALS),
      });
      const id = randomUUID();
      const shift = 10n ** BigInt(coin.decimals - PAYOUT_DECIMALS);
      const format = (u: bigint) => formatUnits(u / shift, PAYOUT_DECIMALS);
      // The treasury's one rule for what it sends: what it owes the payout partner for
      // this payout leaves the treasury too, so below the token's minimum it is refused, and the
      // network's fee is the merchant's, reserved beside the amount (the bank receives the amount).
      const networkFee = sendFee(tokenUnits(request.units, coin), coin.terms, { symbol: PAYOUT_COIN, format }, 'amount', 'bank payout');
      await reserveFromBalance(
        journal,
        tx,
        nowMs,
        account,
        { chainId: coin.chainId, token: coin.token, symbol: PAYOUT_COIN, format },
        tokenUnits(request.units, coin) + networkFee,
        { kind: 'payout_reserved', ref: id, memo: `payout ${reference}${networkFee > 0n ? ` (network fee ${format(networkFee)} ${PAYOUT_COIN})` : ''}` },
      );
      const payout = await payouts.insert(
        tx,
        account,
        {
          id,
          bankId: bank.id,
          currency: bank.currency,
          units: request.units,
          fiatMinor: fiatCentsOf(request.units, bank.currency, request.rate),
          reference,
          metadata: request.metadata,
          chainId: coin.chainId,
          token: coin.token,
          tokenUnits: tokenUnits(request.units, coin),
          usdCents,
        },
        nowMs,
      );
      await events.add(tx, account, 'PAYOUT_UPDATED', report(payout), nowMs);
      return payout;
    });
  }

  /**
   * Moves a payout on; a change of status writes its event in the same transaction, and its end
   * moves its reservation: paid, owed to the payout partner (its network fee to the fees account);
   * failed, back to the balance.
   */
  async advance(
    payout: StoredPayout,
    next: { status: PayoutStatus; providerRef?: string; failure?: string; checkAtMs: number | null },
    nowMs: number,
    report: (payout: Payout) => unknown,
  ): Promise<void> {
    const { payouts, journal, events } = this.stores;
    await this.db.transaction(async (tx) => {
      const { payout: moved, held } = await payouts.setStatus(tx, payout.id, next, nowMs);
      if (next.status === payout.status) return;
      const account = { merchant: { id: payout.merchantId } as Account['merchant'], mode: payout.mode as Account['mode'] };
      if (held && (next.status === 'paid' || next.status === 'failed')) {
        const reserved = merchantAccount(payout.merchantId, payout.mode, 'reserved');
        const { chainId, token, amount } = held;
        // Its network fee: what its reservation held beyond the amount, whatever the network file says now.
        const reservedAll = await journal.reservedBy(tx, 'payout_reserved', payout.id);
        const fee = reservedAll > amount ? reservedAll - amount : 0n;
        const postings: Posting[] =
          next.status === 'failed'
            ? move(reserved, merchantAccount(payout.merchantId, payout.mode, 'available'), chainId, token, amount + fee)
            : fee === 0n
              ? move(reserved, PAYOUT_PAYABLE, chainId, token, amount)
              : [
                  { account: reserved, chainId, token, amount: -(amount + fee) },
                  { account: PAYOUT_PAYABLE, chainId, token, amount },
                  { account: FEES, chainId, token, amount: fee },
                ];
        await journal.post(
          tx,
          {
            kind: next.status === 'paid' ? 'payout_paid' : 'payout_returned',
            ref: payout.id,
            owner: account,
            memo: `payout ${payout.reference}${next.failure ? `: ${next.failure}` : ''}`,
          },
          postings,
          nowMs,
        );
      }
      await events.add(tx, account, 'PAYOUT_UPDATED', report(payoutView(moved)), nowMs);
    });
  }
}

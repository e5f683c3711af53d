// The payment credits the watcher hands its transfers to, over storage: confirmed transfers become credits on their payments,
// reorganised ones are taken back, and money that cannot count is told to the merchant.
import type { PaymentCredits } from '../chain/confirmed.ts';
import type { MerchantStore } from '../merchants/store.ts';
import type { PaymentStore } from './store.ts';
import type { Crediting } from './crediting.ts';
import type { SeenTransfer } from '../chain/store.ts';
import { depositReport, verificationView } from './views.ts';
import type { Account } from '../domain/account.ts';

export function paymentCredits(deps: { payments: PaymentStore; crediting: Crediting; merchants: MerchantStore; now: () => number }): PaymentCredits {
  const whose = async (t: SeenTransfer): Promise<{ account: Account; reference: string }> => {
    const payment = (await deps.payments.whose(t.paymentId))!;
    const merchant = (await deps.merchants.byId(payment.merchantId))!;
    return { account: { merchant, mode: payment.mode, via: 'secret' }, reference: payment.reference };
  };
  const report = depositReport(deps.now);
  const money = (t: SeenTransfer) => ({
    chainId: t.chainId,
    txHash: t.txHash,
    logIndex: t.logIndex,
    token: t.token,
    from: t.sender,
    to: t.recipient,
    amount: String(t.amount),
    blockNumber: String(t.blockNumber),
  });
  return {
    async creditBlock(transfers, tx) {
      const now = deps.now();
      return deps.crediting.creditBlock(
        tx,
        transfers.map((t) => ({ ...t, arrivedMs: t.seenMs ?? now })),
        now,
        report,
      );
    },
    async uncredit(t) {
      const { account, reference } = await whose(t);
      await deps.crediting.uncredit(account, reference, t, deps.now(), {
        type: 'DEPOSIT_REVERSED',
        data: (p) => ({ ...verificationView(p, deps.now(), true), reversed: money(t) }),
      });
    },
    async unmatched(t, why) {
      const { account, reference } = await whose(t);
      const payment = await deps.payments.find(account, reference);
      // Sent on another chain of the mode to the payment's address (the same there): said as such, the transfer naming its chain.
      const reason = why === 'unexpected' && payment && payment.chainId !== t.chainId ? 'wrong_chain' : why;
      await deps.crediting.tell(
        account,
        'DEPOSIT_UNMATCHED',
        { reason, transfer: money(t), payment: payment && verificationView(payment, deps.now(), true) },
        deps.now(),
      );
    },
  };
}

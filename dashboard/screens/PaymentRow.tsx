// A payment in a list (Payments, Home): its reference, status, price, what arrived of what was
// asked, the customer and when; the whole line opens the payment.
import { h } from 'preact';
import type { PaymentSummary } from '../../contract/dashboard.ts';
import { coins, money, statusWords, when } from '../format.ts';
import { t } from '../words.ts';

export function PaymentRow({ p }: { p: PaymentSummary }) {
  return (
    <li class="payment">
      <a href={`/dashboard/payments/${encodeURIComponent(p.reference)}`}>
        <span class="ref">{p.reference}</span>
        <span class={`status status-${p.status}`}>{statusWords(p.status)}</span>
        <span class="amount">
          {money(p.fiatAmount, p.currency)} · {t('{paid} of {asked} received', { paid: coins(p.amountPaid, p.coin), asked: coins(p.actualAmount, p.coin) })}
        </span>
        <span class="meta">
          {p.customer?.email ?? ''} · {when(p.createdAt)}
        </span>
      </a>
    </li>
  );
}

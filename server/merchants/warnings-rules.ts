// What blocks the merchant's money (or its news), in words, without I/O: the Home screen's warnings and
// GET /api/v1/account/warnings. Each has a code a program can act on and a sentence a person
// can; none names a secret.

export type WarningCode = 'no_webhook_url' | 'no_payout_address' | 'webhook_failing' | 'not_ready';
export interface Warning {
  code: WarningCode;
  message: string;
}

export interface MoneyFacts {
  mode: 'test' | 'live';
  /** The mode's network, if the service has one. */
  network?: { chainId: number; name: string };
  /** The merchant's payout address on that network's chain. */
  payoutAddress?: string;
  /** Where the mode's payments settle: a balance the operator holds needs no payout address. */
  settlement: 'wallet' | 'balance';
  /** The mode's webhook URL (null: none set). */
  webhookUrl: string | null;
  /** The latest delivery to the webhook URL. */
  lastAttempt?: { status: number; error: string | null; atMs: number };
  /** The service's readiness checks that fail. */
  notReady: Array<{ name: string; detail: string }>;
}

const delivered = (status: number) => status >= 200 && status < 300;

export function moneyWarnings(facts: MoneyFacts): Warning[] {
  const warnings: Warning[] = [];
  if (facts.webhookUrl === null) warnings.push({ code: 'no_webhook_url', message: `No webhook URL for ${facts.mode} payments: events wait until you set one.` });
  if (facts.network && facts.settlement === 'wallet' && !facts.payoutAddress) {
    warnings.push({
      code: 'no_payout_address',
      message: `No payout address for ${facts.network.name} (chain ${facts.network.chainId}): ${facts.mode} payments there are refused until you set one.`,
    });
  }
  const attempt = facts.lastAttempt;
  if (attempt && !delivered(attempt.status)) {
    const answer = attempt.status ? `answered ${attempt.status}` : `could not be reached (${(attempt.error ?? 'no answer').slice(0, 120)})`;
    warnings.push({ code: 'webhook_failing', message: `Your webhook endpoint ${answer} at ${new Date(attempt.atMs).toISOString()}: events are retried, and your server has not heard of them.` });
  }
  if (facts.notReady.length) {
    warnings.push({ code: 'not_ready', message: `The service is not ready: ${facts.notReady.map((c) => `${c.name}: ${c.detail}`).join('; ')}. Payments may not be seen until it is.` });
  }
  return warnings;
}

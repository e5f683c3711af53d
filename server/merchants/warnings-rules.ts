// What blocks the merchant's money (or its news), in words, without I/O: the Home screen's warnings and
// GET /api/v1/account/warnings. Each has a code a program can act on, the names and numbers
// its sentence holds (`params`: the dashboard says it in the member's language from these), and
// the sentence in English (`message`); none names a secret.
import type { MoneyWarning } from '../../contract/warnings.ts';

export type WarningCode = MoneyWarning['code'];
export type Warning = MoneyWarning;

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
  const mode = facts.mode;
  if (facts.webhookUrl === null)
    warnings.push({ code: 'no_webhook_url', message: `No webhook URL for ${mode} payments: events wait until you set one.`, params: { mode } });
  if (facts.network && facts.settlement === 'wallet' && !facts.payoutAddress) {
    const { name: network, chainId } = facts.network;
    warnings.push({
      code: 'no_payout_address',
      message: `No payout address for ${network} (chain ${chainId}): ${mode} payments there are refused until you set one.`,
      params: { mode, network, chainId },
    });
  }
  const attempt = facts.lastAttempt;
  if (attempt && !delivered(attempt.status)) {
    const error = (attempt.error ?? 'no answer').slice(0, 120);
    const answer = attempt.status ? `answered ${attempt.status}` : `could not be reached (${error})`;
    const at = new Date(attempt.atMs).toISOString();
    warnings.push({
      code: 'webhook_failing',
      message: `Your webhook endpoint ${answer} at ${at}: events are retried, and your server has not heard of them.`,
      params: attempt.status ? { mode, status: attempt.status, at } : { mode, error, at },
    });
  }
  if (facts.notReady.length) {
    // The checks' names and details are the operator's (its readiness check); the merchant is told how many fail.
    warnings.push({
      code: 'not_ready',
      message: `The service is not ready: ${facts.notReady.map((c) => `${c.name}: ${c.detail}`).join('; ')}. Payments may not be seen until it is.`,
      params: { mode, checks: facts.notReady.length },
    });
  }
  return warnings;
}

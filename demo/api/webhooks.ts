// DEPOSIT_TRANSACTION deliveries: signed with the merchant's secret key over a timestamp and
// the raw body, retried with exponential backoff until the merchant answers 2xx.
import { randomBytes } from 'node:crypto';
import type { KeyMode } from '../../src/options/keys.ts';
import { SIGNATURE_HEADER, signWebhook, type DepositEvent } from '../../src/server/webhook.ts';
import type { Verification } from '../../src/wire/schemas.ts';
import type { Merchant } from './catalog.ts';

export interface Delivery {
  eventId: string;
  url: string;
  attempt: number;
  /** The merchant's HTTP status, or 0 when it could not be reached. */
  status: number;
  body: string;
  signature: string;
}

export class WebhookSender {
  readonly deliveries: Delivery[] = [];
  private readonly urls = new Map<string, string>();
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  /** `retryMs` doubles after each failed attempt; `attempts` in all. */
  constructor(
    private readonly retryMs = 1000,
    private readonly attempts = 6,
  ) {}

  configure(merchant: Merchant, mode: KeyMode, url: string): void {
    this.urls.set(`${merchant.id}/${mode}`, url);
  }

  urlOf(merchant: Merchant, mode: KeyMode): string | undefined {
    return this.urls.get(`${merchant.id}/${mode}`);
  }

  /** A payment changed: tell the merchant, if it gave a URL. */
  send(merchant: Merchant, mode: KeyMode, data: Verification): void {
    const url = this.urlOf(merchant, mode);
    if (!url) return;
    const event: DepositEvent = {
      id: 'evt_' + randomBytes(12).toString('hex'),
      event: 'DEPOSIT_TRANSACTION',
      created: Math.floor(Date.now() / 1000),
      data,
    };
    const body = JSON.stringify(event);
    const deliver = async (attempt: number): Promise<void> => {
      // Signed afresh each attempt, so a retry is never refused as stale.
      const signature = signWebhook(merchant.keys[mode].secretKey, body);
      let status = 0;
      try {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [SIGNATURE_HEADER]: signature },
          body,
          signal: AbortSignal.timeout(5000),
        });
        status = response.status;
        await response.arrayBuffer();
      } catch {
        status = 0;
      }
      this.deliveries.push({ eventId: event.id, url, attempt, status, body, signature });
      if ((status < 200 || status >= 300) && attempt < this.attempts) {
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          void deliver(attempt + 1);
        }, this.retryMs * 2 ** (attempt - 1));
        this.timers.add(timer);
      }
    };
    void deliver(1);
  }

  close(): void {
    this.timers.forEach(clearTimeout);
    this.timers.clear();
  }
}

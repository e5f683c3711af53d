import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, signWebhook, verifyWebhook, WebhookError } from './webhook.ts';

const secret = 'sk_test_harbour0demo0secret';
const now = Date.parse('2026-11-22T12:00:00Z');
const t = now / 1000;
const body = JSON.stringify({ id: 'evt_1', event: 'DEPOSIT_TRANSACTION', created: t, data: { reference: 'order-1', status: 'confirmed' } });

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookError);
    return (error as WebhookError).reason;
  }
  throw new Error('accepted');
}

describe('verifyWebhook', () => {
  it('accepts a genuine, fresh delivery and returns its event', () => {
    const event = verifyWebhook(body, signWebhook(secret, body, t), secret, { now });
    expect(event).toMatchObject({ id: 'evt_1', data: { reference: 'order-1' } });
    expect(verifyWebhook(Buffer.from(body), signWebhook(secret, body, t - 299), secret, { now }).id).toBe('evt_1');
  });

  it.each([
    ['a changed body', () => verifyWebhook(body.replace('confirmed', 'CONFIRMED'), signWebhook(secret, body, t), secret, { now }), 'bad_signature'],
    ['a body re-serialised with other spacing', () => verifyWebhook(JSON.stringify(JSON.parse(body), null, 1), signWebhook(secret, body, t), secret, { now }), 'bad_signature'],
    ['another key', () => verifyWebhook(body, signWebhook('sk_test_someone0else', body, t), secret, { now }), 'bad_signature'],
    ['a timestamp changed after signing', () => verifyWebhook(body, signWebhook(secret, body, t).replace(`t=${t}`, `t=${t + 1}`), secret, { now }), 'bad_signature'],
    ['no header', () => verifyWebhook(body, undefined, secret, { now }), 'missing_signature'],
    ['a header in another form', () => verifyWebhook(body, 'sha256=abc', secret, { now }), 'malformed_signature'],
    ['a short signature', () => verifyWebhook(body, `t=${t},v1=abcd`, secret, { now }), 'malformed_signature'],
    ['a replay, signed 10 minutes ago', () => verifyWebhook(body, signWebhook(secret, body, t - 600), secret, { now }), 'stale'],
    ['a timestamp from the future', () => verifyWebhook(body, signWebhook(secret, body, t + 600), secret, { now }), 'stale'],
    ['a signed body that is not an event', () => verifyWebhook('{"hello":1}', signWebhook(secret, '{"hello":1}', t), secret, { now }), 'malformed_body'],
    ['a signed body that is not JSON', () => verifyWebhook('nope', signWebhook(secret, 'nope', t), secret, { now }), 'malformed_body'],
  ])('refuses %s', (_name, run, reason) => {
    expect(refusal(run)).toBe(reason);
  });

  it('takes its tolerance from the caller', () => {
    expect(refusal(() => verifyWebhook(body, signWebhook(secret, body, t - 20), secret, { now, toleranceSeconds: 10 }))).toBe('stale');
  });

  // The service records and sends every type in the contract's one list; a verifier that
  // refused one would answer 400 to a genuine delivery, and the merchant would never learn of it.
  it.each(EVENT_TYPES)('accepts every event type the service sends: %s', (type) => {
    const event = JSON.stringify({ id: `evt_${type}`, event: type, created: t, data: { reason: 'late', transfer: {} } });
    expect(verifyWebhook(event, signWebhook(secret, event, t), secret, { now })).toMatchObject({ id: `evt_${type}`, event: type });
  });

  it('refuses a signed body whose event type the service never sends', () => {
    const event = JSON.stringify({ id: 'evt_x', event: 'DEPOSIT_INVENTED', created: t, data: {} });
    expect(refusal(() => verifyWebhook(event, signWebhook(secret, event, t), secret, { now }))).toBe('malformed_body');
  });
});

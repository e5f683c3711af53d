import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, signStandardWebhook, signWebhook, verifyWebhook, WebhookError } from './webhook.ts';

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
    [
      'a body re-serialised with other spacing',
      () => verifyWebhook(JSON.stringify(JSON.parse(body), null, 1), signWebhook(secret, body, t), secret, { now }),
      'bad_signature',
    ],
    ['another key', () => verifyWebhook(body, signWebhook('sk_test_someone0else', body, t), secret, { now }), 'bad_signature'],
    [
      'a timestamp changed after signing',
      () => verifyWebhook(body, signWebhook(secret, body, t).replace(`t=${t}`, `t=${t + 1}`), secret, { now }),
      'bad_signature',
    ],
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

describe('verifyWebhook with Standard Webhooks headers', () => {
  // A secret as the service makes them: whsec_ and 32 base64 characters (24 bytes).
  const whsec = 'whsec_' + Buffer.from('twenty-four random bytes').toString('base64');
  const signed = (at = t, secrets: string | string[] = whsec) => signStandardWebhook(secrets, 'evt_1', body, at);

  it('signs as the standardwebhooks package does, and accepts what that package signs', () => {
    const reference = new Webhook(whsec);
    expect(signed()['webhook-signature']).toBe(reference.sign('evt_1', new Date(now), body));
    const theirs = { 'Webhook-Id': 'evt_1', 'Webhook-Timestamp': String(t), 'Webhook-Signature': reference.sign('evt_1', new Date(now), body) };
    expect(verifyWebhook(body, theirs, whsec, { now }).id).toBe('evt_1');
    expect(verifyWebhook(Buffer.from(body), signed(t - 299), whsec, { now }).id).toBe('evt_1');
  });

  it('prefers webhook-signature when both schemes are in the headers, and takes x-service-signature alone', () => {
    expect(
      refusal(() => verifyWebhook(body, { ...signed(), 'webhook-signature': 'v1,AAAA', 'x-service-signature': signWebhook(whsec, body, t) }, whsec, { now })),
    ).toBe('bad_signature');
    expect(verifyWebhook(body, { 'x-service-signature': signWebhook(whsec, body, t) }, whsec, { now }).id).toBe('evt_1');
  });

  it('during a rotation carries one signature per secret, and either verifies', () => {
    const both = signed(t, [whsec, 'whsec_' + Buffer.from('another twenty-four byte').toString('base64')]);
    expect(both['webhook-signature'].split(' ')).toHaveLength(2);
    expect(verifyWebhook(body, both, whsec, { now }).id).toBe('evt_1');
  });

  it.each([
    ['a changed body', () => verifyWebhook(body.replace('confirmed', 'CONFIRMED'), signed(), whsec, { now }), 'bad_signature'],
    [
      'another secret',
      () => verifyWebhook(body, signed(t, 'whsec_' + Buffer.from('someone else entirely!!!').toString('base64')), whsec, { now }),
      'bad_signature',
    ],
    ['a timestamp changed after signing', () => verifyWebhook(body, { ...signed(), 'webhook-timestamp': String(t + 1) }, whsec, { now }), 'bad_signature'],
    ["a signed id that is not the event's", () => verifyWebhook(body, signStandardWebhook(whsec, 'evt_2', body, t), whsec, { now }), 'malformed_body'],
    ['a missing webhook-id', () => verifyWebhook(body, { ...signed(), 'webhook-id': undefined }, whsec, { now }), 'missing_signature'],
    ['a signature in another form', () => verifyWebhook(body, { ...signed(), 'webhook-signature': 'sha256=abc' }, whsec, { now }), 'malformed_signature'],
    [
      'a v1a (asymmetric) signature only',
      () => verifyWebhook(body, { ...signed(), 'webhook-signature': signed()['webhook-signature'].replace('v1,', 'v1a,') }, whsec, { now }),
      'bad_signature',
    ],
    ['a replay, signed 10 minutes ago', () => verifyWebhook(body, signed(t - 600), whsec, { now }), 'stale'],
  ])('refuses %s', (_name, run, reason) => {
    expect(refusal(run)).toBe(reason);
  });
});

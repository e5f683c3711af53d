// E-mail, sent to a real SMTP server the test starts, on PGlite: an
// invitation goes to the invited address only (refused once by the server, then tried again
// and accepted), in the language asked, and its link works against the service; the operator's
// sign-in link reaches the owner and works; a sign-in from a new device is told, a known one is
// not; a change of one's second factors is told to that person; a payment received is e-mailed
// to whoever asked for it; a refund's claim link and receipt reach the payment's customer.
// Nothing secret but the link is in an e-mail, and no address nor link reaches a log or stays
// in the outbox once sent. Two claims at once take different e-mails (on PGlite and PostgreSQL). Without SMTP_URL, e-mail
// is off: said once in the log, and the invitation's link is answered to pass on by hand.
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../../testing/conformance.ts';
import { startService, type Service } from '../../service/app.ts';
import { cheapPasswords } from '../../testing/passwords.ts';
import { render } from '../rules.ts';
import { emailReads } from '../../service/parts.ts';
import { EmailStore } from '../store.ts';
import { createLogger } from '../../service/log.ts';
import type { Database } from '../../storage/db.ts';
import { databaseOptions, KINDS, migratedDatabase, ONLY_PGLITE } from '../../testing/databases.ts';
import { startSmtp } from '../../testing/smtp.ts';

holdAnswersToOpenApi();

const ADMIN = 'op_email_test_token_0123456789abcdef0123456789a';
const PASSWORD = 'correct horse battery';

type Call = { method?: string; body?: unknown; cookie?: string; csrf?: string; bearer?: string };
async function call(api: Service, path: string, c: Call = {}) {
  const headers: Record<string, string> = { origin: api.url };
  if (c.body !== undefined) headers['content-type'] = 'application/json';
  if (c.cookie) headers.cookie = c.cookie;
  if (c.csrf) headers['x-csrf-token'] = c.csrf;
  if (c.bearer) headers.authorization = `Bearer ${c.bearer}`;
  const response = await fetch(api.url + path, { method: c.method ?? 'GET', headers, body: c.body === undefined ? undefined : JSON.stringify(c.body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, cookies: response.headers.getSetCookie() };
}
const cookieOf = (cookies: string[], name: string) => cookies.map((c) => c.split(';')[0]!).find((c) => c.startsWith(`${name}=`))!;
const linkIn = (text: string, path: string) => new RegExp(`https?://\\S+${path}\\S+`).exec(text)?.[0];

describe.each(ONLY_PGLITE)('e-mail on %s', { timeout: 120_000 }, (kind) => {
  let api: Service;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  const logged: string[] = [];
  let merchant: { id: string; keys: { test: { secretKey: string } } };
  let owner: { cookie: string; csrf: string; device: string };

  beforeAll(async () => {
    smtp = await startSmtp();
    const sink = new Writable({ write: (chunk, _enc, done) => (logged.push(String(chunk)), done()) });
    api = await startService({
      adminToken: ADMIN,
      ...cheapPasswords,
      smtpUrl: smtp.url,
      mailRetryMs: 100,
      jobIntervalMs: 50,
      signInsPerClient: 10_000,
      sweepIntervalMs: 0,
      logger: createLogger('info', sink),
      ...(await databaseOptions(kind)),
    });
    const made = await call(api, '/operator/v1/merchants', {
      method: 'POST',
      bearer: ADMIN,
      body: { name: 'Harbour <Coffee>', email: 'owner@harbour.example' },
    });
    expect(made.status).toBe(201);
    merchant = made.body.data;
    const token = new URL(made.body.data.signInUrl).hash.replace(/^#token=/, '');
    const set = await call(api, '/dashboard/api/password', { method: 'POST', body: { token, password: PASSWORD } });
    expect(set.status).toBe(200);
    owner = { cookie: set.cookies[0]!.split(';')[0]!, csrf: set.body.data.csrfToken, device: cookieOf(set.cookies, 'device') };
  });
  afterAll(async () => {
    await api?.close();
    await smtp?.close();
  });

  it('an invitation goes to the invited address only, is tried again when refused, and its link works', async () => {
    smtp.refuseNext(1);
    const made = await call(api, '/api/v1/members/invitations', {
      ...owner,
      method: 'POST',
      body: { email: 'vera@harbour.example', role: 'viewer', language: 'fr' },
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    // E-mail on: the link is not answered to the inviter, who could otherwise join as that address.
    expect(made.body.data).toMatchObject({ link: null, emailed: true });
    const mail = await smtp.waitFor((m) => m.to.includes('vera@harbour.example'));
    expect(mail.subject).toBe("Vous êtes invité(e) dans l'équipe de Harbour <Coffee>");
    expect(mail.text).toContain('en tant que lecteur');
    // The business's name is text in the HTML part, never markup.
    expect(mail.html).toContain('Harbour &#60;Coffee&#62;');
    expect(mail.html).not.toContain('<Coffee>');
    const link = linkIn(mail.text, '/dashboard/join#invitation=')!;
    expect(mail.html).toContain(link);
    // Refused once (451), then accepted: two attempts; once sent, the outbox keeps no address nor body.
    const outbox = new EmailStore(api.db, emailReads);
    const deadline = Date.now() + 30_000;
    let invitation = (await outbox.states()).find((r) => r.kind === 'invitation');
    while (invitation?.state !== 'sent' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      invitation = (await outbox.states()).find((r) => r.kind === 'invitation');
    }
    expect(invitation).toMatchObject({ state: 'sent', attempts: 2, recipient: null, lastError: null });
    // The link works against the service, for that address.
    const token = new URL(link).hash.replace(/^#invitation=/, '');
    const joined = await call(api, '/dashboard/api/invitation', { method: 'POST', body: { token, email: 'vera@harbour.example', password: PASSWORD } });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    expect(joined.body.data.role).toBe('viewer');
    // Nothing secret but the link: no key, no password, no other token.
    expect(mail.raw).not.toContain(merchant.keys.test.secretKey);
    expect(mail.raw).not.toContain(PASSWORD);
    expect(`${mail.subject} ${mail.text} ${mail.html}`.match(/[0-9a-f]{32,}|[A-Za-z0-9_-]{40,}/g)?.filter((t) => !link.includes(t)) ?? []).toEqual([]);
    // …and neither the address nor the link reached a log.
    expect(logged.join('')).not.toContain('vera@harbour.example');
    expect(logged.join('')).not.toContain(token);
    expect(logged.join('')).toContain('"error":"EMESSAGE DATA 451"');
  });

  it("the operator's sign-in link is e-mailed to the owner, and works", async () => {
    const issued = await call(api, `/operator/v1/merchants/${merchant.id}/sign-in-link`, { method: 'POST', bearer: ADMIN });
    expect(issued.status).toBe(201);
    expect(issued.body.data.emailed).toBe(true);
    const mail = await smtp.waitFor((m) => m.to.includes('owner@harbour.example') && m.subject.startsWith('Your sign-in link'));
    const link = linkIn(mail.text, '/dashboard/welcome#token=')!;
    expect(link).toBe(issued.body.data.signInUrl);
    const used = await call(api, '/dashboard/api/password', {
      method: 'POST',
      body: { token: new URL(link).hash.replace(/^#token=/, ''), password: PASSWORD },
      cookie: owner.device,
    });
    expect(used.status).toBe(200);
    owner = { ...owner, cookie: used.cookies[0]!.split(';')[0]!, csrf: used.body.data.csrfToken };
  });

  it('a sign-in from a new device is told to that person; from a known device, not', async () => {
    // What earlier sign-ins sent has arrived: only what these two make is counted below.
    const outbox = new EmailStore(api.db, emailReads);
    for (const deadline = Date.now() + 20_000; (await outbox.states()).some((r) => r.state === 'pending') && Date.now() < deadline; )
      await new Promise((r) => setTimeout(r, 50));
    const before = smtp.received.length;
    const known = await call(api, '/dashboard/api/session', {
      method: 'POST',
      body: { email: 'owner@harbour.example', password: PASSWORD },
      cookie: owner.device,
    });
    expect(known.status).toBe(200);
    expect(cookieOf(known.cookies, 'device')).toBe(owner.device);
    const fresh = await call(api, '/dashboard/api/session', { method: 'POST', body: { email: 'owner@harbour.example', password: PASSWORD } });
    expect(fresh.status).toBe(200);
    const told = await smtp.waitFor(
      (m) => smtp.received.indexOf(m) >= before && m.to.includes('owner@harbour.example') && m.subject.startsWith('A new sign-in'),
      8_000,
    );
    expect(told.text).toContain('Sign out everywhere');
    // Only the new device's sign-in made an e-mail.
    expect(smtp.received.slice(before).filter((m) => m.subject.startsWith('A new sign-in'))).toHaveLength(1);
  });

  it("each change of a person's second factors, and each recovery code used, is e-mailed to that person: what and when, no secret", async () => {
    const started = await call(api, '/dashboard/api/factors/totp/options', { ...owner, method: 'POST' });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const secret = started.body.data.secret as string;
    const app = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
    const added = await call(api, '/dashboard/api/factors/totp', { ...owner, method: 'POST', body: { code: app.generate() } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    const codes = added.body.data.recoveryCodes as string[];
    const mine = (words: string) => smtp.waitFor((m) => m.to.includes('owner@harbour.example') && m.text.includes(words));
    const told = [await mine('An authenticator app was added')];
    expect(told[0]!.subject).toBe('Your second factors changed: Harbour <Coffee>');
    expect(told[0]!.text).toMatch(/Harbour <Coffee>, at \d{4}-\d\d-\d\d \d\d:\d\d \(UTC\)/);
    expect(told[0]!.text).toContain('Sign out everywhere');
    expect(
      (
        await call(api, '/dashboard/api/step-up', {
          ...owner,
          method: 'POST',
          body: { recovery_code: codes[0], for: { method: 'DELETE', path: `/dashboard/api/factors/${added.body.data.id}` } },
        })
      ).status,
    ).toBe(200);
    told.push(await mine('A recovery code was used'));
    expect((await call(api, `/dashboard/api/factors/${added.body.data.id}`, { ...owner, method: 'DELETE' })).status).toBe(204);
    told.push(await mine('A second factor was removed'));
    // The person whose factors they are, nobody else; no secret, no recovery code.
    expect(smtp.received.filter((m) => m.subject.startsWith('Your second factors changed')).flatMap((m) => m.to)).toEqual(
      Array(3).fill('owner@harbour.example'),
    );
    for (const m of told) for (const hidden of [secret, ...codes]) expect(`${m.raw} ${m.text} ${m.html}`).not.toContain(hidden);
  });

  it('a payment received is e-mailed to whoever asked for it, in their language', async () => {
    const chosen = await call(api, '/api/v1/email_choices', { ...owner, method: 'PUT', body: { payment_received: true, language: 'ar' } });
    expect(chosen.status, JSON.stringify(chosen.body)).toBe(200);
    expect(chosen.body.data).toEqual({ language: 'ar', payment_received: true, email_on: true });
    // A key has no person to choose for.
    expect((await call(api, '/api/v1/email_choices', { bearer: merchant.keys.test.secretKey })).status).toBe(403);
    const key = merchant.keys.test.secretKey;
    expect(
      (
        await call(api, '/api/v1/transaction/initialize', {
          method: 'POST',
          bearer: key,
          body: { reference: 'mail-1', coin: 'USDT', currency: 'USD', amount: 12.5, customer_email: 'ada@example.com' },
        })
      ).status,
    ).toBeLessThan(300);
    expect((await call(api, '/api/v1/sandbox/deposit', { method: 'POST', bearer: key, body: { reference: 'mail-1', kind: 'exact' } })).status).toBe(200);
    const mail = await smtp.waitFor((m) => m.text.includes('mail-1'));
    expect(mail.to).toEqual(['owner@harbour.example']);
    expect(mail.subject).toContain('تم استلام دفعة');
    expect(mail.html).toContain('dir="rtl"');
    // The customer's e-mail is the merchant's data: not copied into the notice.
    expect(mail.raw).not.toContain('ada@example.com');
    // The viewer did not ask: told nothing.
    expect(smtp.received.filter((m) => m.to.includes('vera@harbour.example'))).toHaveLength(1);
  });

  it("a refund waiting for the customer's wallet e-mails them its claim link (never logged), and a confirmed refund their receipt", async () => {
    const key = merchant.keys.test.secretKey;
    const made = await call(api, '/api/v1/refunds', { method: 'POST', bearer: key, body: { reference: 'mail-1', amount: 'rest', reason: 'out of stock' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body.message).toContain('e-mailed');
    const claimUrl = made.body.data.claim_url as string;
    const link = await smtp.waitFor((m) => m.to.includes('ada@example.com') && m.subject.includes('is refunding you'));
    expect(link.subject).toBe(`Harbour <Coffee> is refunding you ${made.body.data.amount_exact} USDT`);
    expect(linkIn(link.text, '/refund#')).toBe(claimUrl);
    // Nothing secret but the link; the link in no log line.
    expect(link.raw).not.toContain(key);
    expect(logged.join('')).not.toContain(new URL(claimUrl).hash.slice(1));
    // Confirmed (as the refund job writes it): the customer's receipt names amount, coin, chain and transaction, and no link.
    const tx = `0x${'ab'.repeat(32)}`;
    await api.parts.events.add(
      api.db,
      { merchant: { id: merchant.id }, mode: 'test' } as never,
      'REFUND_UPDATED',
      { ...made.body.data, claim_url: undefined, status: 'confirmed', tx_hash: tx },
      Date.now(),
    );
    const receipt = await smtp.waitFor((m) => m.to.includes('ada@example.com') && m.subject.startsWith('Your refund from'));
    expect(receipt.text).toContain(`sent your refund of ${made.body.data.amount_exact} USDT on chain ${made.body.data.chain_id} for the payment mail-1`);
    expect(receipt.text).toContain(`Transaction: ${tx}`);
    expect(receipt.raw).not.toContain(new URL(claimUrl).hash.slice(1));
    // Its other changes tell the customer nothing (one link, one receipt).
    await api.parts.events.add(
      api.db,
      { merchant: { id: merchant.id }, mode: 'test' } as never,
      'REFUND_UPDATED',
      { ...made.body.data, claim_url: undefined, status: 'sent', tx_hash: tx },
      Date.now(),
    );
    const outbox = new EmailStore(api.db, emailReads);
    for (const deadline = Date.now() + 20_000; (await outbox.states()).some((r) => r.state === 'pending') && Date.now() < deadline; )
      await new Promise((r) => setTimeout(r, 50));
    expect(smtp.received.filter((m) => m.to.includes('ada@example.com'))).toHaveLength(2);
  });

  it('a send told completed again (a reorganisation took it away, its transaction sent again) is e-mailed once: by send and state, not by event', async () => {
    const feed = { merchant: { id: merchant.id }, mode: 'test' } as never;
    const tx = `0x${'cd'.repeat(32)}`;
    const made = await call(api, '/api/v1/refunds?reference=mail-1', { bearer: merchant.keys.test.secretKey });
    expect(made.status, JSON.stringify(made.body)).toBe(200);
    const refund = (made.body.data as Array<Record<string, unknown>>).find((r) => r.reference === 'mail-1')!;
    const withdrawal = { id: randomUUID(), coin: 'USDT', chain_id: 31337, address: `0x${'12'.repeat(20)}`, amount: '7.77', network_fee: '0', tx_hash: tx };
    // As balances/sends-final.ts tells it: completed, back to pending, completed again (the webhook feed gets each).
    for (const status of ['completed', 'pending', 'completed'])
      await api.parts.events.add(api.db, feed, 'WITHDRAWAL_UPDATED', { ...withdrawal, status }, Date.now());
    // The refund of mail-1, confirmed above (its receipt sent): sent again at its transaction, confirmed again.
    for (const status of ['sent', 'confirmed']) await api.parts.events.add(api.db, feed, 'REFUND_UPDATED', { ...refund, status, tx_hash: tx }, Date.now());
    // Another withdrawal, after them in the feed: once its e-mail is out, the ones before were planned.
    await api.parts.events.add(api.db, feed, 'WITHDRAWAL_UPDATED', { ...withdrawal, id: randomUUID(), amount: '8.88', status: 'completed' }, Date.now());
    await smtp.waitFor((m) => m.to.includes('owner@harbour.example') && m.text.includes('8.88'));
    const outbox = new EmailStore(api.db, emailReads);
    for (const deadline = Date.now() + 20_000; (await outbox.states()).some((r) => r.state === 'pending') && Date.now() < deadline; )
      await new Promise((r) => setTimeout(r, 50));
    expect(smtp.received.filter((m) => m.to.includes('owner@harbour.example') && m.text.includes('7.77'))).toHaveLength(1);
    expect(smtp.received.filter((m) => m.to.includes('ada@example.com') && m.subject.startsWith('Your refund from'))).toHaveLength(1);
    // The webhook feed told each change (a second completed is what happened), whatever the e-mails.
    const told = (await api.parts.events.list(feed, 0, 1000))
      .map((e) => JSON.parse(e.body) as { type: string; data: { id: string; status: string } })
      .filter((e) => e.data.id === withdrawal.id);
    expect(told.map((e) => e.data.status)).toEqual(['completed', 'pending', 'completed']);
  });
});

// Two claims racing on one database: on PostgreSQL two connections, on PGlite its one.
describe.each(KINDS)('e-mail claims on %s', { timeout: 60_000 }, (kind) => {
  let db: Database;
  beforeAll(async () => void (db = await migratedDatabase(kind)), 60_000);
  afterAll(() => db.close());

  it('two claims at once take different e-mails', async () => {
    const store = new EmailStore(db, emailReads);
    // Due in ten days: were the service's own job running, it would leave them to the two claims below.
    const at = Date.now() + 10 * 86_400_000;
    for (let i = 0; i < 10; i++) await store.enqueue(render('sign_in_link', 'en', `p${i}@x.example`, { business: 'B' }, 'https://x.example/l'), undefined, at);
    const [a, b] = await Promise.all([store.claimDue(at, 60_000, 6), store.claimDue(at, 60_000, 6)]);
    const ids = [...a, ...b].filter((r) => r.to.endsWith('@x.example')).map((r) => r.id);
    expect(new Set([...a, ...b].map((r) => r.id)).size).toBe(a.length + b.length);
    expect(ids.length).toBe(10);
    // A claim that lost its lease settles nothing.
    expect(await store.recordAttempt({ ...a[0]!, leaseToken: 'not-ours' }, { state: 'sent' }, at)).toBe(false);
  });
});

describe('e-mail off (no SMTP_URL)', () => {
  it('is said once in the log, and the invitation answers its link to pass on by hand', async () => {
    const logged: string[] = [];
    const sink = new Writable({ write: (chunk, _enc, done) => (logged.push(String(chunk)), done()) });
    const api = await startService({ adminToken: ADMIN, jobs: false, ...cheapPasswords, logger: createLogger('info', sink) });
    try {
      const made = await call(api, '/operator/v1/merchants', { method: 'POST', bearer: ADMIN, body: { name: 'Quiet', email: 'owner@quiet.example' } });
      const token = new URL(made.body.data.signInUrl).hash.replace(/^#token=/, '');
      const set = await call(api, '/dashboard/api/password', { method: 'POST', body: { token, password: PASSWORD } });
      const owner = { cookie: set.cookies[0]!.split(';')[0]!, csrf: set.body.data.csrfToken };
      const invited = await call(api, '/api/v1/members/invitations', { ...owner, method: 'POST', body: { email: 'x@quiet.example', role: 'viewer' } });
      expect(invited.status).toBe(201);
      expect(invited.body.data.emailed).toBe(false);
      expect(invited.body.data.link).toMatch(/\/dashboard\/join#invitation=/);
      expect(invited.body.message).toContain('copy this link');
      const link = await call(api, `/operator/v1/merchants/${made.body.data.id}/sign-in-link`, { method: 'POST', bearer: ADMIN });
      expect(link.body.data.emailed).toBe(false);
      expect(logged.filter((l) => l.includes('e-mail is off'))).toHaveLength(1);
    } finally {
      await api.close();
    }
  });
});

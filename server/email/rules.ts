// The e-mails' rules, without I/O: what each says in the recipient's language (plain text and
// HTML, the HTML escaped), which events are told by e-mail and to whom, and when a refused
// e-mail is tried again. Nothing secret goes into an e-mail but its one link.
import type { Actor } from '../domain/permissions.ts';
import { ROLE_PERMISSIONS, type Permission } from '../domain/permissions.ts';
import { languageOf, WORDS, type EmailKind, type Language } from './messages-rules.ts';

export { LANGUAGES, languageOf, type EmailKind, type Language } from './messages-rules.ts';

/** An e-mail as the outbox keeps it until it is sent. */
export interface Email {
  kind: EmailKind;
  to: string;
  subject: string;
  text: string;
  html: string;
  /**
   * What this e-mail tells, once (a send's id and state): the outbox keeps one e-mail per
   * `once` and recipient, so an event told again (a send a reorganisation took away, sent again
   * at its recorded transaction and completed a second time) e-mails nobody twice.
   */
  once?: string;
}

/** The values an e-mail's words are filled with (never a secret but `link`). */
export type Values = Record<string, string | number>;

const fill = (template: string, values: Values, escaped: (s: string) => string): string =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => (values[name] === undefined ? '' : escaped(String(values[name]))));

const html = (s: string): string => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const plain = (s: string): string => s.replace(/[\r\n]+/g, ' ');

/** Renders one e-mail to `to` in `language`; `link` is its button's target (in the text part, on its own line). */
export function render(kind: EmailKind, language: string, to: string, values: Values, link?: string): Email {
  const lang: Language = languageOf(language);
  const words = WORDS[lang];
  const message = words[kind];
  const all: Values = {
    ...values,
    mode: values.mode === 'test' ? words.testMode : '',
    role: typeof values.role === 'string' ? (words.roles[values.role as keyof typeof words.roles] ?? values.role) : '',
    what: typeof values.what === 'string' ? (words.what[values.what as keyof typeof words.what] ?? values.what) : '',
    change: typeof values.change === 'string' ? (words.changes[values.change as keyof typeof words.changes] ?? values.change) : '',
  };
  const footer =
    kind === 'new_device' || kind === 'factor_changed' || kind === 'security_changed'
      ? words.notMe
      : kind === 'invitation' || kind === 'sign_in_link' || kind === 'refund_link'
        ? words.ignore
        : '';
  // A subject is one line, whatever a business calls itself.
  const subject = plain(fill(message.subject, all, plain))
    .replace(/\s+/g, ' ')
    .trim();
  const lines = message.lines.map((line) => fill(line, all, plain));
  const signature = fill(words.signature, all, plain);
  const text = [words.greeting, '', ...lines.flatMap((l) => [l, '']), ...(link ? [link, ''] : []), ...(footer ? [footer, ''] : []), '-- ', signature, ''].join(
    '\n',
  );
  const dir = lang === 'ar' ? 'rtl' : 'ltr';
  const button =
    link && message.button
      ? `<p><a href="${html(link)}" style="display:inline-block;padding:10px 18px;background:#1a56db;color:#fff;border-radius:6px;text-decoration:none">${html(message.button)}</a></p><p style="font-size:12px;color:#555">${html(link)}</p>`
      : '';
  const body = [
    `<!doctype html><html lang="${lang}" dir="${dir}"><head><meta charset="utf-8"><title>${html(subject)}</title></head>`,
    '<body style="font-family:system-ui,sans-serif;line-height:1.5;color:#111">',
    `<p>${html(words.greeting)}</p>`,
    ...message.lines.map((line) => `<p>${fill(html(line), all, html)}</p>`),
    button,
    footer ? `<p style="color:#555">${html(footer)}</p>` : '',
    `<p style="color:#555">${fill(html(words.signature), all, html)}</p></body></html>`,
  ].join('');
  return { kind, to, subject, text, html: body };
}

/** How refused e-mails are tried again: doubling from a base, capped, for a window. */
export interface MailRetry {
  baseMs: number;
  capMs: number;
  windowMs: number;
}

/** When to try again after failed attempt `attempt` (1 for the first), or undefined: given up. */
export function nextTry(policy: MailRetry, createdMs: number, attempt: number, nowMs: number): number | undefined {
  const at = nowMs + Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(attempt - 1, 40));
  return at - createdMs <= policy.windowMs ? at : undefined;
}

/** A person who may be told: the owner or a member, with their e-mail, language and choices. */
export interface Recipient {
  /** 'owner', or the member's id. */
  person: string;
  email: string;
  role: Actor;
  language: string;
  paymentReceived: boolean;
}

/** An event the service made (storage/events.ts), as the e-mail job reads it. */
export interface MailedEvent {
  type: string;
  mode: string;
  data: Record<string, unknown>;
  /** A refund's payment's customer (their e-mail and language), when the payment has one. */
  customer?: { email: string; language: string };
}

/** Which events are told by e-mail (migration 0034's trigger keeps the same list). */
export const MAILED_EVENTS = [
  'DEPOSIT_TRANSACTION',
  'PAYOUT_UPDATED',
  'WITHDRAWAL_UPDATED',
  'PAYOUT_ADDRESS_PENDING',
  'BANK_ACCOUNT_PENDING',
  'WITHDRAWAL_ADDRESS_PENDING',
  'REFUND_UPDATED',
] as const;

const can = (role: Actor, permission: Permission) => ROLE_PERMISSIONS[role].includes(permission);
const whenText = (iso: unknown) => (typeof iso === 'string' ? iso.replace('T', ' ').replace(/\.\d+Z$|Z$/, '') : '');

/** A send's e-mails keyed on the send (its id) and the state they tell, not on the event: told once whatever the events. */
const once = (event: MailedEvent, emails: Email[]): Email[] =>
  typeof event.data.id === 'string' ? emails.map((e) => ({ ...e, once: `${event.type}/${event.data.id as string}/${String(event.data.status)}` })) : emails;

/**
 * The e-mails an event makes: a payment received to those who asked for it (each member's own
 * choice); a bank payout paid to who may make payouts; a withdrawal sent to who may withdraw;
 * a new destination waiting to the owner and whoever may cancel it (account.write); a refund
 * confirmed, its receipt to the payment's customer (when the payment has their e-mail). Other
 * events, and other states of these, make none. A withdrawal's and a refund's e-mail is once per
 * send (`once`): one completed again after a reorganisation (its webhook event told again) is
 * not e-mailed again.
 */
export function emailsFor(event: MailedEvent, business: string, people: Recipient[], dashboard: string): Email[] {
  const d = event.data;
  const base = { business, mode: event.mode };
  const pick = (kind: EmailKind, who: (r: Recipient) => boolean, values: Values, link: string) =>
    people.filter(who).map((r) => render(kind, r.language, r.email, { ...base, ...values }, link));
  switch (event.type) {
    case 'DEPOSIT_TRANSACTION':
      // Paid in full (confirmed) is told once; its later settlement is not told again.
      if (d.status !== 'confirmed') return [];
      return pick(
        'payment_received',
        (r) => r.paymentReceived && can(r.role, 'payments.read'),
        {
          amount: String(d.amountPaidExact ?? d.amountPaid ?? ''),
          coin: String(d.coin ?? ''),
          fiat: String(d.fiatAmount ?? ''),
          currency: String(d.currency ?? ''),
          reference: String(d.reference ?? ''),
        },
        `${dashboard}/payments`,
      );
    case 'PAYOUT_UPDATED':
      if (d.status !== 'paid') return [];
      return pick(
        'payout_sent',
        (r) => can(r.role, 'payouts.write'),
        {
          amount: String(d.amount ?? ''),
          coin: String(d.coin ?? ''),
          fiat: String(d.fiat_amount ?? ''),
          currency: String(d.currency ?? ''),
          reference: String(d.reference ?? ''),
        },
        `${dashboard}/payouts`,
      );
    case 'WITHDRAWAL_UPDATED':
      if (d.status !== 'completed') return [];
      return once(
        event,
        pick(
          'withdrawal_sent',
          (r) => can(r.role, 'balances.write'),
          { amount: String(d.amount ?? ''), coin: String(d.coin ?? ''), chain: String(d.chain_id ?? '') },
          `${dashboard}/balances`,
        ),
      );
    case 'PAYOUT_ADDRESS_PENDING':
    case 'BANK_ACCOUNT_PENDING':
    case 'WITHDRAWAL_ADDRESS_PENDING':
      if (d.state !== 'pending') return [];
      return pick(
        'destination_pending',
        (r) => can(r.role, 'account.write'),
        { what: String(d.kind ?? ''), effective: whenText(d.effective_at) },
        `${dashboard}/settings`,
      );
    case 'REFUND_UPDATED':
      // Confirmed (its block has the network's confirmations): the customer's receipt, with its transaction.
      if (d.status !== 'confirmed' || !event.customer) return [];
      return once(event, [
        render('refund_receipt', event.customer.language, event.customer.email, {
          business,
          amount: String(d.amount_exact ?? ''),
          coin: String(d.coin ?? ''),
          chain: String(d.chain_id ?? ''),
          reference: String(d.reference ?? ''),
          tx: String(d.tx_hash ?? ''),
        }),
      ]);
    default:
      return [];
  }
}

// A person's own e-mail choices: the language their e-mails are written in, and
// whether each payment received is e-mailed to them (off by default). From a dashboard session,
// for the one signed in (the owner or a member): a key has no person to choose for.
import { EmailChoicesAnswer, EmailChoicesBody } from '../../contract/team.ts';
import { Forbidden } from '../domain/errors.ts';
import type { Account } from '../domain/account.ts';
import { ok } from '../http/respond.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'mail';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;

function personOf(account: Account): string {
  if (!account.session) throw new Forbidden("E-mail choices are a person's own: set them from the dashboard, signed in");
  return account.actor?.kind === 'member' ? account.actor.id : 'owner';
}

export const emailChoices: Handler = async ({ account, service }) => {
  const mine = await service.mail.choices(account.merchant.id, personOf(account));
  return ok(
    200,
    { language: mine.language, payment_received: mine.paymentReceived, email_on: service.mail.on },
    service.mail.on ? 'Your e-mail choices' : 'Your e-mail choices; e-mail is off on this service (no SMTP_URL)',
  );
};

export const setEmailChoices: Handler<{ body: typeof EmailChoicesBody }> = async ({ account, body, service }) => {
  const person = personOf(account);
  const before = await service.mail.choices(account.merchant.id, person);
  const next = { language: body.language ?? before.language, paymentReceived: body.payment_received ?? before.paymentReceived };
  await service.mail.setChoices(account.merchant.id, person, next);
  return ok(200, { language: next.language, payment_received: next.paymentReceived, email_on: service.mail.on }, 'E-mail choices saved');
};

// account.read: every role holds it; each person reads and sets only their own choices.
export const routes = [
  route({
    method: 'GET',
    path: '/api/v1/email_choices',
    auth: 'merchant',
    permission: 'account.read',
    handler: emailChoices,
    tag: 'Account',
    summary: 'your own e-mail choices (a dashboard session)',
    description:
      'The language of your e-mails (`en`, `fr`, `ar`), whether each payment received is e-mailed to you (off by default), and whether e-mail is on (`email_on`: SMTP_URL set). A key gets 403.',
    responses: { 200: EmailChoicesAnswer },
    errors: [403],
  }),
  route({
    method: 'PUT',
    path: '/api/v1/email_choices',
    auth: 'merchant',
    permission: 'account.read',
    handler: setEmailChoices,
    tag: 'Account',
    body: EmailChoicesBody,
    summary: 'set your own e-mail choices (a dashboard session)',
    description: '`{ language?, payment_received? }`: only the fields sent change. Your own choices only, whatever your role. A key gets 403.',
    responses: { 200: EmailChoicesAnswer },
    errors: [403],
  }),
];

// The merchant's team: members listed, invited with a role, changed, removed (their
// sessions end at once), and ownership handed over; from a dashboard session only (with its
// CSRF token and origin, as every session write), never with a key. An invitation is a
// single-use link answered once to whoever invites (e-mail comes in a later round); the invited
// person accepts it with their own e-mail and a password (dashboard/routes.ts), and is signed in.
import { Done } from '../../contract/api.ts';
import { ByMember, InvitationAnswer, InviteBody, MemberAnswer, MemberRoleBody, MembersAnswer } from '../../contract/team.ts';
import type { Account } from '../domain/account.ts';
import { Forbidden, NotFound } from '../domain/errors.ts';
import { ok } from '../http/respond.ts';
import type { Handler as AnyHandler, Schemas } from '../api/context.ts';
import { route } from '../api/route.ts';
import { INVITATION_MS, invitationLink } from './rules.ts';
import type { KeyAudit } from './use-cases.ts';
import type { MemberRow } from './store.ts';
import { changeRoleTold, removeTold } from './told.ts';
import { actorOf } from '../audit/rules.ts';
import { clientOf } from '../http/client.ts';

/** The parts of the service these routes use: their handlers are given these alone. */
type Uses = 'config' | 'log' | 'mail' | 'now' | 'origin' | 'team';
type Handler<S extends Schemas = {}> = AnyHandler<S, Uses>;
type Ctx = Parameters<Handler>[0];

/**
 * A member's restricted key revoked (removed) or narrowed (demoted) with them: a row of
 * its mode's audit log, by whoever changed the member, written with the change.
 */
const keyAudit =
  ({ account, req, service }: Pick<Ctx, 'account' | 'req' | 'service'>, memberId: string): KeyAudit =>
  (key) => [
    {
      merchantId: account.merchant.id,
      mode: key.mode,
      atMs: service.now(),
      actor: actorOf(account),
      client: clientOf(req, service.config.trustProxies),
      action: key.permissions.length ? "narrow restricted key (member's role changed)" : 'revoke restricted key (member removed)',
      target: key.id,
      details: { params: { member: memberId }, values: { permissions: key.permissions } },
    },
  ];

const iso = (ms: number) => new Date(ms).toISOString();
const memberView = (m: MemberRow) => ({ id: m.id, email: m.email, role: m.role, createdAt: iso(m.createdMs) });

/** People are managed by people: a key, even a full one, is refused. */
function sessionOnly(account: Account): void {
  if (!account.session) throw new Forbidden('Members are managed from the dashboard, signed in: a key cannot manage them');
}

export const listMembers: Handler = async ({ account, service }) => {
  const { owner, members } = await service.team.members(account.merchant.id);
  const list = [...(owner ? [{ id: 'owner', email: owner.email, role: 'owner' as const, createdAt: null }] : []), ...members.map(memberView)];
  return ok(200, list, `${list.length} in the team`);
};

export const invite: Handler<{ body: typeof InviteBody }> = async ({ account, body, service }) => {
  sessionOnly(account);
  const nowMs = service.now();
  const token = await service.team.invite(account.merchant.id, body.email, body.role, nowMs, INVITATION_MS);
  const link = invitationLink(service.origin(), token);
  // E-mail on: the link goes to the invited address only, so that whoever joins holds that
  // mailbox (an inviter holding the link could join as the address themself). Off: answered once.
  const emailed = await service.mail.invitation(account.merchant.id, account.merchant.businessName, body.email, body.role, body.language ?? 'en', link);
  service.log.info({ merchant: account.merchant.id, role: body.role, emailed }, 'member invited');
  const expiresAt = iso(nowMs + INVITATION_MS);
  if (emailed)
    return ok(201, { email: body.email, role: body.role, expiresAt, link: null, emailed }, 'Invitation e-mailed: its link works once, for this e-mail only');
  return ok(
    201,
    { email: body.email, role: body.role, expiresAt, link, emailed },
    'E-mail is off (no SMTP_URL): copy this link to the invited person by hand; it is shown this once, and works once, for this e-mail only',
  );
};

export const changeMember: Handler<{ params: typeof ByMember; body: typeof MemberRoleBody }> = async (ctx) => {
  const { account, params, body, service } = ctx;
  sessionOnly(account);
  const member = await changeRoleTold(service, account, params.id, body.role, keyAudit(ctx, params.id));
  const keys = member.keys.length ? `, and ${member.keys.length} of their restricted keys now do only what the role may` : '';
  return ok(200, memberView(member), `Role changed; their sessions ended${keys}`);
};

export const removeMember: Handler<{ params: typeof ByMember }> = async (ctx) => {
  const { account, params, service } = ctx;
  sessionOnly(account);
  const gone = await removeTold(service, account, params.id, keyAudit(ctx, params.id));
  const keys = gone.keys.length ? ` and their ${gone.keys.length} restricted keys were revoked` : '';
  return ok(200, undefined, `Member removed; their sessions ended${keys}`);
};

export const handOver: Handler<{ params: typeof ByMember }> = async ({ account, params, service }) => {
  sessionOnly(account);
  if (account.actor) throw new Forbidden('Only the owner hands ownership over');
  if (!(await service.team.handOver(account.merchant.id, params.id, service.now()))) throw new NotFound('No such member');
  service.log.info({ merchant: account.merchant.id }, 'ownership handed over');
  return ok(200, undefined, 'Ownership handed over; you are an admin now, and every session ended');
};

export const routes = [
  route({
    method: 'GET',
    path: '/api/v1/members',
    auth: 'merchant',
    permission: 'team.read',
    handler: listMembers,
    tag: 'Account',
    summary: 'the team: the owner and each member with their role',
    description: 'The owner first (`id` "owner"), then each member by the time they joined.',
    responses: { 200: MembersAnswer },
  }),
  route({
    method: 'POST',
    path: '/api/v1/members/invitations',
    auth: 'merchant',
    permission: 'team.write',
    stepUp: 'always',
    handler: invite,
    tag: 'Account',
    body: InviteBody,
    summary: 'invite a member by e-mail with a role (a dashboard session only)',
    description:
      "Roles: `admin`, `finance`, `developer`, `support`, `viewer` (docs/team.md). With e-mail on (SMTP_URL), the link is e-mailed to the invited address in `language` (en, fr, ar) and not answered (`link` null, `emailed` true); with e-mail off, the answer's `link` is shown this once, to pass on by hand. Either way its token is kept only as a hash, and it works once, for a week, and only for this e-mail. A key gets 403; an address already in the team is 409; past 20 invitations in an hour for the business, 429 `rate_limited` naming the limit (with Retry-After).",
    responses: { 201: InvitationAnswer },
    errors: [403, 'email_in_use', 429],
    idempotency: 'secret',
  }),
  route({
    method: 'PATCH',
    path: '/api/v1/members/:id',
    auth: 'merchant',
    permission: 'team.write',
    stepUp: 'always',
    handler: changeMember,
    tag: 'Account',
    params: ByMember,
    body: MemberRoleBody,
    summary: "change a member's role (their sessions end at once)",
    description: 'From a dashboard session (a key gets 403); nobody changes their own role. The member signs in again with the new role.',
    responses: { 200: MemberAnswer },
    errors: [403, 404],
  }),
  route({
    method: 'DELETE',
    path: '/api/v1/members/:id',
    auth: 'merchant',
    permission: 'team.write',
    stepUp: 'always',
    handler: removeMember,
    tag: 'Account',
    params: ByMember,
    summary: 'remove a member (their sessions end at once)',
    description: 'From a dashboard session (a key gets 403): their password opens nothing from now on.',
    responses: { 200: Done },
    errors: [403, 404],
  }),
  route({
    method: 'POST',
    path: '/api/v1/members/:id/ownership',
    auth: 'merchant',
    permission: 'team.write',
    stepUp: 'always',
    handler: handOver,
    tag: 'Account',
    params: ByMember,
    summary: 'hand ownership over to a member (the owner only)',
    description: 'The member signs in as the owner from now; the owner becomes an admin. Every session of the business ends.',
    responses: { 200: Done },
    errors: [403, 404],
  }),
];

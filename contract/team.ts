// A merchant's team on the wire: the permissions a route needs and a restricted key
// holds, the members' roles, and the bodies and answers of the members, restricted keys and
// audit log endpoints. Only the service and clients read these (not the dashboard's bundle).
import * as z from 'zod/mini';
import { answer, envelope } from './api.ts';
import { bool, businessName, email, is, later, nullable, oneOf, text, timestamp } from './fields.ts';
import { pageAnswer, pageQuery } from './paging.ts';

/** Every permission a route may declare, `area.read` or `area.write`. */
export const PERMISSIONS = [
  'payments.read',
  'payments.write',
  'refunds.write',
  'balances.read',
  'balances.write',
  'payouts.read',
  'payouts.write',
  'developers.read',
  'developers.write',
  'account.read',
  'account.write',
  'team.read',
  'team.write',
  'audit.read',
] as const;
export type Permission = (typeof PERMISSIONS)[number];

/** A member's role (the owner is handed over, never given by invitation). */
export const ROLES = ['admin', 'finance', 'developer', 'support', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

const role = oneOf(ROLES);
const roleOrOwner = oneOf(['owner', ...ROLES] as const);

/** The languages e-mails are written in (the checkout's). */
export const EMAIL_LANGUAGES = ['en', 'fr', 'ar'] as const;
const language = oneOf(EMAIL_LANGUAGES);

export const InviteBody = later(() => z.object({ email, role, language: z.optional(language) }));
/** A person's own e-mail choices: the language they are written in, and an e-mail for each payment received. */
export const EmailChoicesBody = later(() => z.object({ language: z.optional(language), payment_received: z.optional(bool) }));
export const EmailChoicesAnswer = later(() => answer(z.object({ language, payment_received: bool, email_on: bool })));
export const MemberRoleBody = later(() => z.object({ role }));
export const RestrictedKeyBody = later(() =>
  z.object({
    /** Told to the owner by e-mail and in SECURITY_CHANGED: the business name's rule (no control character, no link). */
    name: businessName,
    permissions: z.array(oneOf(PERMISSIONS)).check(z.minLength(1, 'at least one permission')),
    /** Optional: refused from this time on (401 saying it expired); in the future, at most a year ahead. */
    expires_at: z.optional(timestamp),
  }),
);
export const AuditQuery = later(() =>
  z.object({
    ...pageQuery(),
    actor: z.optional(is<string>((v) => typeof v === 'string' && v.length >= 1 && v.length <= 200, 'text of 1 to 200 characters')),
    actor_kind: z.optional(oneOf(['owner', 'member', 'key', 'operator'] as const)),
    action: z.optional(is<string>((v) => typeof v === 'string' && v.length >= 1 && v.length <= 200, 'text of 1 to 200 characters')),
    from: z.optional(timestamp),
    to: z.optional(timestamp),
  }),
);

export const Member = later(() =>
  z.object({ id: text, email: text, role: roleOrOwner, createdAt: nullable<string>((v) => typeof v === 'string', 'an ISO 8601 time') }),
);
export const MembersAnswer = later(() => answer(z.array(Member)));
export const MemberAnswer = later(() => answer(Member));
/** An invitation: its link is answered this once (its token is kept only as a hash). */
/** With e-mail on, the link goes to the invited address only (`link` null, `emailed` true); off, it is answered to pass on by hand. */
export const InvitationAnswer = later(() =>
  answer(z.object({ email: text, role, expiresAt: timestamp, link: nullable<string>((v) => typeof v === 'string', 'text'), emailed: bool })),
);
/** Who made a key: the owner, a member (id, e-mail) or a key (id or hint); null for one made before this was kept. */
export const KeyMaker = later(() => z.nullable(z.object({ kind: oneOf(['owner', 'member', 'key'] as const), id: text, label: text })));
const when = nullable<string>((v) => typeof v === 'string' && !Number.isNaN(Date.parse(v)), 'an ISO 8601 time');
/** A restricted key as listed: who made it, when it expires (null: never), when and from which client address it was last used (null: not yet; kept to the minute). */
const keyFields = () => ({
  id: text,
  name: text,
  mode: oneOf(['test', 'live'] as const),
  hint: text,
  permissions: z.array(oneOf(PERMISSIONS)),
  createdAt: timestamp,
  createdBy: KeyMaker,
  expiresAt: when,
  lastUsedAt: when,
  lastUsedFrom: nullable<string>((v) => typeof v === 'string', 'text'),
});
export const RestrictedKey = later(() => z.object(keyFields()));
export const RestrictedKeysAnswer = later(() => answer(z.array(RestrictedKey)));
/** A new restricted key: its secret is answered this once. */
export const NewRestrictedKeyAnswer = later(() => answer(z.object({ ...keyFields(), secretKey: text })));
export const AuditEntry = later(() =>
  z.object({
    id: text,
    at: timestamp,
    mode: oneOf(['test', 'live'] as const),
    actor: z.object({ kind: oneOf(['owner', 'member', 'key', 'operator'] as const), id: text, label: text }),
    client: text,
    action: text,
    target: nullable<string>((v) => typeof v === 'string', 'text'),
    details: z.record(z.string(), z.unknown()),
  }),
);
/** A page of the audit log, newest first, as every list pages: `next` is the cursor of the following page (null: no more). */
export const AuditAnswer = later(() => z.object({ ...envelope(), data: z.array(AuditEntry), ...pageAnswer() }));

/** POST /dashboard/api/invitation: the invitation link's token (from its #fragment), the invited e-mail, a new password. */
export const AcceptInvitationBody = later(() =>
  z.object({
    token: is<string>((v) => typeof v === 'string' && /^[A-Za-z0-9_-]{20,100}$/.test(v), 'the token of an invitation link'),
    email,
    password: is<string>((v) => typeof v === 'string' && v.length >= 10 && v.length <= 200, 'a password of 10 to 200 characters'),
  }),
);
export const ByMember = later(() =>
  z.object({ id: is<string>((v) => typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v), 'a UUID') }),
);

// The team's rules, without I/O: how long an invitation lasts, and who may change
// whom. An invitation's token is single-use and kept only as a hash (merchants/sign-in-rules.ts).
import type { Role } from '../domain/permissions.ts';

/** An invitation link works for a week, once. */
export const INVITATION_MS = 7 * 24 * 3_600_000;

/** Invitations a business may make in an hour: each is an e-mail sent in its name. */
export const INVITATIONS_PER_HOUR = 20;

/** The invitation's link: its token in the #fragment, which browsers never send in a request nor a Referer. */
export const invitationLink = (origin: string, token: string): string => `${origin}/dashboard/join#invitation=${token}`;

/** Whether an e-mail is the invited one (case aside). */
export const sameEmail = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/** The owner hands ownership over; who was the owner stays, as an admin. */
export const FORMER_OWNER_ROLE: Role = 'admin';

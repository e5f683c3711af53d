// The dashboard's session (GET/POST /dashboard/api/session…): who is signed in, as the service
// answers it and the dashboard reads it. Apart from dashboard.ts so the dashboard's first load
// (its sign-in and frame) carries these shapes alone, the screens' own in their chunks.
import * as z from 'zod/mini';
import { bool, int, is, later, oneOf, text, timestamp } from './fields.ts';

const envelope = () => ({ status: oneOf(['success']), statusCode: int, message: z.optional(text) });

const network = is<{ chainId: number; name: string }>(
  (v) => !!v && typeof v === 'object' && Number.isSafeInteger((v as { chainId: unknown }).chainId) && typeof (v as { name: unknown }).name === 'string',
  'a network: { chainId, name }',
);

const sessionCoin = z.object({ symbol: text, chainId: int, decimals: int });

/**
 * The dashboard's session: who is signed in, the token its state-changing requests carry, the
 * public keys, and each mode's networks (none: an empty list; the dashboard opens in live mode
 * when live has one). Each network needs its own payout address.
 */
export const DashboardSession = later(() =>
  z.object({
    merchant: z.object({ id: text, businessName: text, businessEmail: text }),
    /** What this person's role may do (contract/team.ts's PERMISSIONS; the service also answers `role`): the screens offered follow it; the service checks each request itself. */
    permissions: z.array(text),
    csrfToken: text,
    expiresAt: timestamp,
    publicKeys: z.object({ test: text, live: text }),
    networks: z.object({ test: z.array(network), live: z.array(network) }),
    /** Each mode's coins, one per coin and network (the sandbox's when no network): the payments filter offers them, a refund's amount is counted in their decimals. */
    coins: z.optional(z.object({ test: z.array(sessionCoin), live: z.array(sessionCoin) })),
    /** This person has a second factor; the owner requires one they lack (they enrol before anything else). */
    secondFactor: z.optional(z.object({ enrolled: bool, mustEnrol: bool })),
  }),
);
export type DashboardSession = z.infer<typeof DashboardSession>;

/** The answer of every dashboard session endpoint. */
export const SessionAnswer = later(() => z.object({ ...envelope(), data: DashboardSession }));
/**
 * POST /dashboard/api/session for a person with a second factor: the kinds they
 * have; POST /dashboard/api/session/factor signs in. (The dashboard's sign-in reads `factorNeeded`
 * alone, then the session through SessionProbe: no schema of its own in the first load.)
 */
export const FactorNeeded = later(() =>
  z.object({ ...envelope(), data: z.object({ factorNeeded: z.array(oneOf(['passkey', 'totp'])), expiresAt: timestamp }) }),
);
/** GET /dashboard/api/session, "am I signed in?": the session, or no `data` when nobody is (a 200, not a 401). */
export const SessionProbe = later(() => z.object({ ...envelope(), data: z.optional(DashboardSession) }));

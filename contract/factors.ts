// Second factors and step-up: the bodies of the dashboard's routes that add a
// passkey or an authenticator app, and that prove one before a money move. The service checks
// them here, once, at its edge; a passkey's own answer (WebAuthn's JSON) is checked by the
// WebAuthn library, so only its shape is said here.
import * as z from 'zod/mini';
import { is, later, oneOf } from './fields.ts';

const code = is<string>((v) => typeof v === 'string' && /^\d{6}$/.test(v), 'the 6 digits your authenticator app shows');
const recovery = is<string>(
  (v) => typeof v === 'string' && /^[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}$/i.test(v.trim()),
  'one of your recovery codes (xxxx-xxxx-xxxx)',
);
const webauthn = is<Record<string, unknown>>(
  (v) => typeof v === 'object' && v !== null && !Array.isArray(v) && typeof (v as { id?: unknown }).id === 'string' && JSON.stringify(v).length <= 16_384,
  "the passkey's answer (navigator.credentials' JSON)",
);
const label = is<string>((v) => typeof v === 'string' && v.trim().length >= 1 && v.length <= 60, 'a name of 1 to 60 characters');

/** POST /dashboard/api/factors/passkey: the new passkey's answer to the options the service gave. */
export const PasskeyBody = later(() => z.object({ response: webauthn, label: z.optional(label) }));
/** POST /dashboard/api/factors/totp: the first code of the authenticator app, which proves it holds the secret. */
export const TotpBody = later(() => z.object({ code, label: z.optional(label) }));
const proof = () => ({ passkey: z.optional(webauthn), code: z.optional(code), recovery_code: z.optional(recovery) });
/** The one request a step-up opens: its method, its path (with its query) and its body as it will be sent (none: no body); the mode is the step-up's own x-mode. */
const action = z.object({
  method: oneOf(['POST', 'PUT', 'PATCH', 'DELETE']),
  path: is<string>((v) => typeof v === 'string' && v.startsWith('/') && !v.startsWith('//') && v.length <= 2000, "the request's path, as /api/v1/withdrawals"),
  body: z.optional(z.unknown()),
});
/** POST /dashboard/api/step-up: one of a passkey's answer, an authenticator code or a recovery code, and `for` the one request it opens, once. */
export const StepUpBody = later(() => z.object({ ...proof(), for: action }));
/** POST /dashboard/api/session/factor, a sign-in's second step: one of a passkey's answer, an authenticator code or a recovery code. */
export const SignInFactorBody = later(() => z.object(proof()));
/** PUT /dashboard/api/factors/policy (the owner): whether every member must have a second factor. */
export const PolicyBody = later(() => z.object({ required: is<boolean>((v) => typeof v === 'boolean', 'true or false') }));
/** POST /dashboard/api/factors/unlock (the owner): the member whose locked proofs are lifted. */
export const UnlockBody = later(() =>
  z.object({ member: is<string>((v) => typeof v === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v), "a member's id") }),
);

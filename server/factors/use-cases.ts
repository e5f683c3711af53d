// Second factors, what the routes do: a passkey registered and proved with
// @simplewebauthn/server (relying party: the host of the service's configured public URL; origin:
// that URL's), an authenticator app's code taken once, a recovery code used once. Every
// challenge is the server's, single-use and short-lived (factor_challenges).
import { createHash } from 'node:crypto';
import { FactorLocked, Invalid, invalidField, NotConfigured } from '../domain/errors.ts';
import { CHALLENGE_MS, newRecoveryCodes, recoveryHash, STEP_UP_TRIES } from './rules.ts';
import { newTotp, totpStep } from './totp.ts';
import type { Factor, FactorStore, ProofKind, Who } from './store.ts';

/** The relying party: the public URL's host name and origin (a passkey works only there). */
export const relyingParty = (publicOrigin: string) => ({ rpID: new URL(publicOrigin).hostname, origin: new URL(publicOrigin).origin });

// @simplewebauthn/server is loaded when a passkey is first used, not with the service: it brings
// some 300 modules (@peculiar's ASN.1, tsyringe), which cost every start, every CLI command
// and every test process about as much time as viem itself.
let library: Promise<typeof import('@simplewebauthn/server')> | undefined;
const webauthn = () => (library ??= import('@simplewebauthn/server'));

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url');

export async function passkeyOptions(factors: FactorStore, who: Who, user: { name: string; business: string }, publicOrigin: string, nowMs: number) {
  const existing = (await factors.factors(who)).filter((f) => f.kind === 'passkey');
  const options = await (await webauthn()).generateRegistrationOptions({
    rpName: user.business,
    rpID: relyingParty(publicOrigin).rpID,
    userName: user.name,
    // The person's handle on the authenticator: WebAuthn takes 1 to 64 bytes, and a member's
    // "merchant id/member id" is 73 (browsers refused every member's passkey); its SHA-256 is 32,
    // one per person, naming nobody.
    userID: new Uint8Array(createHash('sha256').update(`${who.merchantId}/${who.holder}`).digest()),
    attestationType: 'none',
    excludeCredentials: existing.map((f) => ({ id: f.credentialId!, transports: f.transports })),
    authenticatorSelection: { residentKey: 'preferred', userVerification: 'preferred' },
  });
  await factors.putChallenge(who, 'passkey', options.challenge, nowMs + CHALLENGE_MS);
  return options;
}

/** The new passkey, checked against the challenge handed out (taken once). */
export async function registerPasskey(factors: FactorStore, who: Who, response: unknown, label: string, publicOrigin: string, nowMs: number) {
  const challenge = await factors.takeChallenge(who, 'passkey', nowMs);
  if (!challenge) throw invalidField('response', 'no passkey was asked for in the last five minutes, or its answer was used already: start again');
  const rp = relyingParty(publicOrigin);
  const checked = await (await webauthn())
    .verifyRegistrationResponse({
      response: response as never,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      requireUserVerification: false,
    })
    .catch((error: Error) => {
      throw invalidField('response', `the passkey's answer is not valid here: ${error.message}`);
    });
  if (!checked.verified) throw invalidField('response', "the passkey's answer did not verify");
  const { credential } = checked.registrationInfo;
  return factors.add(
    who,
    {
      kind: 'passkey',
      label,
      credentialId: credential.id,
      publicKey: b64(credential.publicKey),
      counter: credential.counter,
      transports: credential.transports,
    },
    nowMs,
  );
}

export async function totpOptions(factors: FactorStore, who: Who, user: { name: string; business: string }, nowMs: number) {
  const made = newTotp(user.business, user.name);
  await factors.putChallenge(who, 'totp', made.secret, nowMs + CHALLENGE_MS);
  return made;
}

/** The authenticator app, proved by its first code; that code's step is taken, so it cannot step up again. */
export async function registerTotp(factors: FactorStore, who: Who, code: string, label: string, nowMs: number) {
  const secret = await factors.takeChallenge(who, 'totp', nowMs);
  if (!secret) throw invalidField('code', 'no authenticator app was being added in the last five minutes: start again');
  const step = totpStep(secret, code, nowMs);
  if (step === undefined) {
    // A typo: the same secret (the app has it already) waits for the right code, until it expires.
    await factors.putChallenge(who, 'totp', secret, nowMs + CHALLENGE_MS);
    throw invalidField('code', 'wrong code: type the 6 digits your app shows now');
  }
  return factors.add(who, { kind: 'totp', label, totpSecret: secret, totpLastStep: step }, nowMs);
}

export async function stepUpOptions(factors: FactorStore, who: Who, publicOrigin: string, nowMs: number) {
  const passkeys = (await factors.factors(who)).filter((f) => f.kind === 'passkey');
  if (passkeys.length === 0) throw new NotConfigured('You have no passkey: use your authenticator app or a recovery code');
  const options = await (await webauthn()).generateAuthenticationOptions({
    rpID: relyingParty(publicOrigin).rpID,
    allowCredentials: passkeys.map((f) => ({ id: f.credentialId!, transports: f.transports })),
    userVerification: 'preferred',
  });
  await factors.putChallenge(who, 'step-up', options.challenge, nowMs + CHALLENGE_MS);
  return options;
}

/**
 * One proof of a second factor: a passkey's answer (its counter moving up), a code not used
 * before, or a recovery code. A passkey answer or an authenticator code is a try counted per
 * person and kind in the database before it is checked: STEP_UP_TRIES wrong in a row lock that
 * kind, whatever the addresses they came from, until a recovery code is used (it lifts every lock
 * of the person) or the owner unlocks them. `onLocked` is called once, by the try that locked it.
 * Recovery codes are never locked: they are the way back, and a lock on them was a way to shut a
 * person out for good with their password alone (wrong codes at sign-in's second step locked the
 * owner's every kind, and no one could unlock the owner). Guessing one is no way in: each is 60
 * random bits, and the requests are rate-limited per client.
 */
export async function prove(
  factors: FactorStore,
  who: Who,
  proof: { passkey?: Record<string, unknown>; code?: string; recovery_code?: string },
  publicOrigin: string,
  nowMs: number,
  onLocked?: (kind: ProofKind) => Promise<void>,
): Promise<{ with: string; unlocked: ProofKind[] }> {
  const kind: ProofKind = proof.passkey ? 'passkey' : proof.code ? 'totp' : 'recovery_code';
  if (!proof.passkey && !proof.code && !proof.recovery_code) throw invalidField('passkey', 'send one of passkey, code or recovery_code');
  if (kind !== 'recovery_code') {
    const taken = await factors.takeTry(who, kind, nowMs);
    if (taken.locked || taken.tries > STEP_UP_TRIES) throw lockedError(kind);
  }
  let proved: { with: string };
  try {
    proved = await proveOnce(factors, who, proof, publicOrigin, nowMs);
  } catch (error) {
    if (kind === 'recovery_code') throw error;
    if (error instanceof Invalid && /used already/.test(error.message) && kind === 'totp') await factors.giveBackTry(who, kind);
    else if (error instanceof Invalid && (await factors.lockAfter(who, kind, STEP_UP_TRIES, nowMs))) {
      await onLocked?.(kind);
      throw lockedError(kind, error.message);
    }
    throw error;
  }
  // A proof that passed forgets the kind's tries; a recovery code, the person's every lock (the way back).
  const unlocked = await factors.clearTries(who, kind === 'recovery_code' ? undefined : [kind]);
  return { ...proved, unlocked };
}

const KIND_WORDS: Record<ProofKind, string> = { totp: 'authenticator codes', passkey: 'passkey answers', recovery_code: 'recovery codes' };

function lockedError(kind: ProofKind, wrong?: string): FactorLocked {
  return new FactorLocked(
    `${wrong ? `${wrong}. ` : ''}Too many wrong ${KIND_WORDS[kind]} in a row (${STEP_UP_TRIES}): they are locked for your account, from every address; use a recovery code, or ask the owner to unlock you`,
  );
}

async function proveOnce(
  factors: FactorStore,
  who: Who,
  proof: { passkey?: Record<string, unknown>; code?: string; recovery_code?: string },
  publicOrigin: string,
  nowMs: number,
): Promise<{ with: string }> {
  const mine = await factors.factors(who);
  if (proof.passkey) return provePasskey(factors, who, mine, proof.passkey, publicOrigin, nowMs);
  if (proof.code) {
    for (const f of mine.filter((f) => f.kind === 'totp')) {
      const step = totpStep(f.totpSecret!, proof.code, nowMs);
      if (step !== undefined && step > f.totpLastStep && (await factors.useTotpStep(f.id, step, nowMs))) return { with: f.label };
      if (step !== undefined) throw invalidField('code', 'this code was used already: wait for the next one your app shows');
    }
    throw invalidField('code', 'wrong code');
  }
  if (mine.length > 0 && (await factors.useRecoveryCode(who, recoveryHash(proof.recovery_code!), nowMs))) return { with: 'a recovery code' };
  throw invalidField('recovery_code', 'not one of your recovery codes, or used already');
}

async function provePasskey(
  factors: FactorStore,
  who: Who,
  mine: Factor[],
  response: Record<string, unknown>,
  publicOrigin: string,
  nowMs: number,
): Promise<{ with: string }> {
  const challenge = await factors.takeChallenge(who, 'step-up', nowMs);
  if (!challenge) throw invalidField('passkey', 'no passkey was asked for in the last five minutes, or its answer was used already: start again');
  const factor = mine.find((f) => f.kind === 'passkey' && f.credentialId === response.id);
  if (!factor) throw invalidField('passkey', 'not one of your passkeys');
  const rp = relyingParty(publicOrigin);
  const checked = await (await webauthn())
    .verifyAuthenticationResponse({
      response: response as never,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.rpID,
      credential: {
        id: factor.credentialId!,
        publicKey: new Uint8Array(Buffer.from(factor.publicKey!, 'base64url')),
        counter: factor.counter,
        transports: factor.transports,
      },
      requireUserVerification: false,
    })
    .catch((error: Error) => {
      throw invalidField('passkey', `the passkey's answer is not valid: ${error.message}`);
    });
  // The counter only goes up (a cloned authenticator's lags); moved once, atomically.
  const next = checked.authenticationInfo.newCounter;
  if (!checked.verified || (next !== 0 && !(await factors.usePasskey(factor.id, factor.counter, next, nowMs))))
    throw invalidField('passkey', "the passkey's answer did not verify");
  return { with: factor.label };
}

/** New recovery codes for the person (shown once): the earlier ones stop working. */
export async function renewRecoveryCodes(factors: FactorStore, who: Who, nowMs: number): Promise<string[]> {
  const codes = newRecoveryCodes();
  await factors.replaceRecoveryCodes(who, codes.map(recoveryHash), nowMs);
  return codes;
}

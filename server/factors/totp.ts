// Authenticator-app codes (TOTP, RFC 6238: SHA-1, 6 digits, 30 s) with otpauth: a new secret
// and its otpauth:// URI, and which time step a code belongs to, so that the caller takes each
// step once (a code seen is never taken again). No I/O; the clock is passed in.
import { Secret, TOTP } from 'otpauth';

const PERIOD_SECONDS = 30;

/** A new authenticator secret (160 bits, base32) and the otpauth:// URI an app scans. */
export function newTotp(issuer: string, account: string): { secret: string; uri: string } {
  const secret = new Secret({ size: 20 });
  const totp = new TOTP({ issuer, label: account, secret, algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS });
  return { secret: secret.base32, uri: totp.toString() };
}

/**
 * The time step a code belongs to (one step either side of now, for clocks a little apart), or
 * undefined for a wrong code. The caller takes the step once: a code seen is never taken again.
 */
export function totpStep(secret: string, code: string, nowMs: number): number | undefined {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: PERIOD_SECONDS });
  const delta = totp.validate({ token: code, timestamp: nowMs, window: 1 });
  return delta === null ? undefined : Math.floor(nowMs / 1000 / PERIOD_SECONDS) + delta;
}

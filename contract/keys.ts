export type KeyMode = 'test' | 'live';

const PUBLIC_KEY = /^pk_(test|live)_[A-Za-z0-9]{8,128}$/;

/** The mode of a public key, decided by its prefix alone; undefined for anything else. */
export function publicKeyMode(key: unknown): KeyMode | undefined {
  const match = typeof key === 'string' ? PUBLIC_KEY.exec(key) : null;
  return match ? (match[1] as KeyMode) : undefined;
}

export const isSecretKey = (key: unknown): boolean => typeof key === 'string' && /^\s*sk_/.test(key);

// Secrets the service must read back (an authenticator app's TOTP secret) are kept
// sealed: AES-256-GCM (node:crypto), a fresh 96-bit nonce each time, bound to whose they are
// (associated data: a row cannot be moved to another person). The key is DATA_DIR/secrets-key
// (32 random bytes, made once, readable by its owner only, as the operator token is; instances
// sharing one PostgreSQL share that file); a service with no state directory (embedded, in
// tests) derives it from the operator token (HKDF), else uses one key made for the process
// (an in-memory database lives no longer). The database holds no key: a copy of it (a dump,
// a backup) opens no secret.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { secretFile } from '../storage/secret-file.ts';

const PREFIX = 'sealed:v1:';

export const secretsKeyFile = (dir: string) => join(dir, 'secrets-key');

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('a secrets key is 32 bytes');
  }

  /** A key for another purpose (`label`), derived from this one: never the key itself. */
  derive(label: string): Buffer {
    return Buffer.from(hkdfSync('sha256', this.key, 'service secrets', label, 32));
  }

  /** Whether `stored` is sealed (rows written before sealing was kept are plain, sealed at start). */
  static sealed = (stored: string): boolean => stored.startsWith(PREFIX);

  seal(secret: string, whose: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(whose));
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64url');
  }

  /** The secret; a plain value (not yet sealed) as it is. Throws for one sealed with another key or for someone else. */
  open(stored: string, whose: string): string {
    if (!SecretBox.sealed(stored)) return stored;
    const raw = Buffer.from(stored.slice(PREFIX.length), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(whose));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** The key file in `dir`, made there (0600) when there is none; refused when others may read it. */
function keyFromDir(dir: string): Buffer {
  const file = secretsKeyFile(dir);
  const key = Buffer.from(
    secretFile(file, () => randomBytes(32).toString('base64url')),
    'base64url',
  );
  if (key.length !== 32) throw new Error(`${file}: expected 32 bytes in base64url (the value is not shown)`);
  return key;
}

/** One key for every service of this process that has neither a state directory nor an operator token. */
let processKey: Buffer | undefined;

/** The service's box: the state directory's key, else one derived from the operator token, else the process's own. */
export function secretBox(stateDir: string | undefined, operatorToken: string | undefined): SecretBox {
  if (stateDir) return new SecretBox(keyFromDir(stateDir));
  if (operatorToken) return new SecretBox(Buffer.from(hkdfSync('sha256', operatorToken, 'service secrets', 'secrets-key v1', 32)));
  return new SecretBox((processKey ??= randomBytes(32)));
}

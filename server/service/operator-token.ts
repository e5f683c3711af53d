// The operator's token: what the operator's commands and a metrics scraper send to the
// service's /operator/ endpoints and /metrics. ADMIN_TOKEN when set; otherwise made once into
// DATA_DIR/operator-token, readable by its owner only (0600), and read from there by the
// commands run as the same user. Never logged, never in a URL, never equal to a merchant key.
import { randomBytes } from 'node:crypto';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { readSecretFile, secretFile } from '../storage/secret-file.ts';

export const tokenFile = (dir: string) => join(dir, 'operator-token');

/** An operator token: 32 or more characters with no space, never a merchant key's prefix. */
export function checkToken(token: string, where: string): string {
  if (!/^\S{32,512}$/.test(token) || /^(pk|sk)_(test|live)_/.test(token)) {
    throw new Error(`${where}: expected an operator token of 32 to 512 characters with no spaces, not a merchant key (the value is not shown)`);
  }
  return token;
}

/** Reads the token file, refusing one that others may read. Undefined when there is none. */
export function readTokenFile(dir: string): string | undefined {
  let token: string | undefined;
  try {
    token = readSecretFile(tokenFile(dir));
  } catch (error) {
    // Not this user's directory, or not a directory: no token here (the command says whose it is).
    if (['EACCES', 'EPERM', 'ENOTDIR'].includes((error as NodeJS.ErrnoException).code ?? '')) return undefined;
    throw error;
  }
  return token === undefined ? undefined : checkToken(token, tokenFile(dir));
}

/** A new operator token: 'op_' and 32 random bytes. */
const newToken = () => 'op_' + randomBytes(32).toString('base64url');

/**
 * ADMIN_TOKEN, or the token in `dir`, made there (0600) when there is none yet; when another
 * instance makes it at the same moment, theirs. (`make` is the new token's maker; a test's
 * plays that other instance.)
 */
export function operatorToken(adminToken: string | undefined, dir: string, make = newToken): string {
  if (adminToken) return checkToken(adminToken, 'ADMIN_TOKEN');
  const file = tokenFile(dir);
  return checkToken(secretFile(file, make), file);
}

/**
 * Who runs an operator command, for the merchant's audit log (sent as `X-Operator`): the
 * machine's user name, printable ASCII only; 'operator' when it has none.
 */
export function operatorName(): string {
  let name = '';
  try {
    name = userInfo().username;
  } catch {
    // no user name on this machine (a container's numeric user)
  }
  return (
    name
      .replace(/[^\x20-\x7e]/g, '')
      .trim()
      .slice(0, 100) || 'operator'
  );
}

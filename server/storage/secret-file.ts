// A secret kept in a file of the state directory (the operator token, the secrets key): made
// once, readable by its owner only (0600), and the same for every process that starts on that
// directory at the same moment, as a deployment's instances do. The file appears whole or not at
// all: it is written under a name of its own and linked into place, so a process that starts
// beside the one making it never reads it half-written, and the one that links second reads
// the first one's.
import { randomBytes } from 'node:crypto';
import { chmodSync, linkSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The file's text, trimmed; undefined when there is none; refused when others may read it. */
export function readSecretFile(file: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new Error(`${file}: others may read it (mode ${(mode & 0o777).toString(8)}); make it the owner's only with chmod 600 ${file}`);
  }
  return readFileSync(file, 'utf8').trim();
}

/** The secret in `file`; when there is none yet, `make()`'s, written there (0600) unless another process got there first. */
export function secretFile(file: string, make: () => string): string {
  const existing = readSecretFile(file);
  if (existing !== undefined) return existing;
  mkdirSync(dirname(file), { recursive: true });
  const partial = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}`);
  const value = make();
  writeFileSync(partial, value + '\n', { mode: 0o600, flag: 'wx' });
  try {
    chmodSync(partial, 0o600); // whatever the umask
    linkSync(partial, file); // fails when the file is there: whole, the other process's
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const theirs = readSecretFile(file);
    if (theirs === undefined) throw error;
    return theirs;
  } finally {
    unlinkSync(partial);
  }
  return value;
}

// A secret kept in a file of the state directory (the operator token, the secrets key): made
// once, readable by its owner only (0600), and the same for every process that starts on that
// directory at the same moment, as a deployment's instances do. The file appears whole or not at
// all: it is written under a name of its own and linked into place, so a process that starts
// beside the one making it never reads it half-written, and the one that links second reads
// the first one's.
import { randomBytes } from 'node:crypto';
import { closeSync, fchmodSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
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

/** Writes `text` to a new file (0600, whatever the umask) and flushes it to the disk. */
function writeDurably(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Flushes a directory's entries (a new name in it) to the disk; where a directory cannot be opened so, nothing. */
function syncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Windows, and file systems that refuse fsync on a directory
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The secret in `file`; when there is none yet, `make()`'s, written there (0600) unless another
 * process got there first. Flushed before it is linked and the directory after: a power cut
 * leaves the file whole or absent, never linked and empty (a secrets key lost so would leave
 * what it sealed unreadable). Where the file system has no hard links, written in place.
 */
export function secretFile(file: string, make: () => string): string {
  const existing = readSecretFile(file);
  if (existing !== undefined) return existing;
  const dir = dirname(file);
  mkdirSync(dir, { recursive: true });
  const value = make();
  const theirs = (error: unknown) => {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const read = readSecretFile(file);
    if (read === undefined) throw error;
    return read;
  };
  const partial = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}`);
  try {
    writeDurably(partial, value + '\n');
    linkSync(partial, file); // fails when the file is there: whole, the other process's
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EOPNOTSUPP' && code !== 'ENOSYS') return theirs(error);
    // No hard links here (some network and FUSE mounts): the file itself, made exclusively.
    try {
      writeDurably(file, value + '\n');
    } catch (direct) {
      return theirs(direct);
    }
  } finally {
    rmSync(partial, { force: true });
  }
  syncDir(dir);
  return value;
}

// One process at a time on an embedded database: PGlite is a single-process cluster in a
// directory, and two processes opening it each keep their own view (a merchant one of them
// made is lost when the other writes). The running service, or an operator's command working
// on the directory directly, holds `service.lock` there; it names its process and, for the
// service, the address where operator commands reach it instead.
import { chmodSync, mkdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LockInfo {
  pid: number;
  role: 'service' | 'command';
  /** The service's own address (loopback), where operator commands reach it. */
  url?: string;
  startedMs: number;
}

export const lockFile = (dataDir: string) => join(dataDir, 'service.lock');

/** Whether a process with this id is alive (EPERM: alive, someone else's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The lock on `dataDir` held by a live process, or undefined (none, unreadable or stale). */
export function heldLock(dataDir: string): LockInfo | undefined {
  let info: LockInfo;
  try {
    info = JSON.parse(readFileSync(lockFile(dataDir), 'utf8')) as LockInfo;
  } catch {
    return undefined;
  }
  return Number.isSafeInteger(info.pid) && info.pid > 0 && alive(info.pid) ? info : undefined;
}

export class DataDirLocked extends Error {
  constructor(
    readonly dataDir: string,
    readonly holder: LockInfo,
  ) {
    super(
      `DATA_DIR ${dataDir} is in use by process ${holder.pid} (${holder.role === 'service' ? `the service, at ${holder.url ?? 'an address not yet known'}` : 'an operator command'}): ` +
        'its embedded database takes one process at a time. Stop that process first, or use DATABASE_URL (PostgreSQL) to run several. ' +
        `If no such process is running, delete ${lockFile(dataDir)}.`,
    );
  }
}

export interface Lock {
  /** Writes the service's address into the lock, for operator commands. */
  announce(url: string): void;
  /** Throws unless the lock still names this process (checked once the database is open). */
  confirm(): void;
  release(): void;
}

/**
 * Takes the lock on `dataDir` for this process, or throws DataDirLocked naming the live holder.
 * A lock left by a process that died (SIGKILL, power cut) is taken over.
 */
/**
 * Makes `dir` (and its parents) if missing, and keeps it to this user: the embedded database
 * writes its files readable and writable by anyone (0666), so the folder's own mode is what
 * keeps another local user from reading webhook secrets and customers in its write-ahead log,
 * or writing into it. A folder of ours that others may enter is tightened to 0700.
 */
export function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const info = statSync(dir);
  if ((info.mode & 0o077) !== 0 && info.uid === process.getuid?.()) chmodSync(dir, 0o700);
}

export function lockDataDir(dataDir: string, role: LockInfo['role']): Lock {
  const path = lockFile(dataDir);
  // A first start makes its folder (the database would, but the lock comes first).
  privateDir(dataDir);
  let info: LockInfo = { pid: process.pid, role, startedMs: Date.now() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(info), { flag: 'wx', mode: 0o600 });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = heldLock(dataDir);
      if (holder) throw new DataDirLocked(dataDir, holder);
      if (attempt > 0) throw new Error(`${path}: could not take the lock; another process is taking it at the same moment`);
      try {
        unlinkSync(path); // stale: its process is gone
      } catch {
        /* someone else removed it first */
      }
    }
  }
  const ours = () => heldLock(dataDir)?.pid === process.pid;
  return {
    confirm() {
      if (!ours()) throw new Error(`${path}: the lock no longer names this process (${process.pid}); something replaced it while the database opened`);
    },
    announce(url) {
      if (!ours()) return;
      info = { ...info, url };
      writeFileSync(path, JSON.stringify(info), { mode: 0o600 });
    },
    release() {
      if (!ours()) return;
      try {
        unlinkSync(path);
      } catch {
        /* already gone */
      }
    },
  };
}

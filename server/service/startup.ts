// What a failed start says: one line naming the setting and what to do, never a stack trace.
// The errors a start meets on a machine set up wrong (a port in use, a DATA_DIR that cannot be
// used, a database that refuses) are named here; any other is a bug, and keeps its stack.

export interface StartSettings {
  port: number;
  host: string;
  dataDir?: string;
  databaseUrl?: string;
}

type NodeError = Error & { code?: string; syscall?: string; path?: string; address?: string; port?: number };

/** The URL without its password: it goes to a terminal and to logs. */
export function redactedUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://…';
  }
}

const PG_CODES: Record<string, string> = {
  '28P01': 'the user name or password was refused',
  '28000': 'the server refused this user',
  '3D000': 'the database does not exist',
  '53300': 'the server has too many connections',
  '57P03': 'the server is starting up or shutting down',
};
const NET_CODES: Record<string, string> = {
  ECONNREFUSED: 'nothing accepts connections there',
  ENOTFOUND: 'its host name is not found',
  EAI_AGAIN: 'its host name could not be looked up',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'its host cannot be reached',
  ECONNRESET: 'the server closed the connection',
};

/** The one line for a start that failed this way, or undefined when it is not a setting's fault. */
export function startupProblem(error: unknown, settings: StartSettings): string | undefined {
  const e = error as NodeError;
  if (!e || typeof e !== 'object') return undefined;
  if (e.syscall === 'listen' || e.code === 'EADDRINUSE' || e.code === 'EADDRNOTAVAIL') {
    const where = `${settings.host}:${settings.port}`;
    if (e.code === 'EADDRINUSE')
      return `PORT=${settings.port}: ${where} is already in use by another process; stop that process, or set PORT to a free port (PORT=0 picks one)`;
    if (e.code === 'EACCES') return `PORT=${settings.port}: this user may not listen on ${where}; set PORT to 1024 or above`;
    if (e.code === 'EADDRNOTAVAIL')
      return `HOST=${settings.host}: no network interface of this machine has that address; set HOST to one it has (127.0.0.1, or 0.0.0.0 for all)`;
    return `PORT=${settings.port}, HOST=${settings.host}: cannot listen on ${where} (${e.code ?? e.message})`;
  }
  if (settings.databaseUrl) {
    const said =
      (e.code && (PG_CODES[e.code] ?? NET_CODES[e.code])) ?? (/password authentication|does not exist|connect/i.test(e.message) ? e.message : undefined);
    if (said)
      return `DATABASE_URL=${redactedUrl(settings.databaseUrl)}: the database could not be used: ${said}${e.code ? ` (${e.code})` : ''}; start PostgreSQL there, or set DATABASE_URL to one that answers`;
  }
  if (settings.dataDir && e.code && ['EACCES', 'EPERM', 'ENOTDIR', 'EEXIST', 'EROFS', 'ENOSPC', 'ENOENT', 'EISDIR'].includes(e.code)) {
    const what = {
      EACCES: 'this user may not use it',
      EPERM: 'this user may not use it',
      ENOTDIR: 'it (or a folder above it) is a file, not a folder',
      EEXIST: 'a file is in the way',
      EROFS: 'it is on a read-only file system',
      ENOSPC: 'its disk is full',
      ENOENT: 'a folder on its path is missing',
      EISDIR: 'a folder is where a file should be',
    }[e.code];
    return `DATA_DIR=${settings.dataDir}: the embedded database cannot be kept there: ${what} (${e.code}${e.path ? ` at ${e.path}` : ''}); give this user a folder it may write, or set DATA_DIR to one`;
  }
  return undefined;
}

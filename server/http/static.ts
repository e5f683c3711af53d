// Built files (checkout.js, its locales, the dashboard's script and style) as a browser should
// get them: compressed ahead of time (the build writes .br and .gz beside each file; nothing is
// compressed per request), chosen by Accept-Encoding, with a strong ETag per file and encoding
// so a repeat view is a 304 of a few hundred bytes, and immutable caching where the name
// carries the content's hash.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';

export type Encoding = 'br' | 'gzip' | 'identity';

/** A built file as read from disk: its bytes in each encoding the build made, and its hash. */
export type BuiltFile = { hash: string; bodies: Partial<Record<Encoding, Buffer>> & { identity: Buffer } };

const cache = new Map<string, { key: string; file: BuiltFile }>();

/**
 * The file at `path` with its precompressed siblings, read once and again only when its size
 * or modification time changes (a rebuild). Undefined when there is no such file.
 */
export async function builtFile(path: string): Promise<BuiltFile | undefined> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return undefined;
  const key = `${info.size}:${info.mtimeMs}`;
  const held = cache.get(path);
  if (held?.key === key) return held.file;
  const identity = await readFile(path);
  const hash = createHash('sha256').update(identity).digest('hex').slice(0, 16);
  const bodies: BuiltFile['bodies'] = { identity };
  for (const [encoding, suffix] of [
    ['br', '.br'],
    ['gzip', '.gz'],
  ] as const) {
    const body = await readFile(path + suffix).catch(() => undefined);
    // A sibling left from another build is never served for this one: its size is a weak tell,
    // its time is not, so each is decompressed once here and compared.
    if (body && decompressesTo(encoding, body, identity)) bodies[encoding] = body;
  }
  const file = { hash, bodies };
  cache.set(path, { key, file });
  return file;
}

function decompressesTo(encoding: 'br' | 'gzip', body: Buffer, identity: Buffer): boolean {
  try {
    return (encoding === 'br' ? brotliDecompressSync(body) : gunzipSync(body)).equals(identity);
  } catch {
    return false;
  }
}

/**
 * The encoding to send, from an Accept-Encoding header and what exists: brotli, then gzip,
 * then the file itself. `q=0` refuses an encoding; `*` stands for any not named.
 */
export function chooseEncoding(header: string | undefined, have: ReadonlySet<Encoding>): Encoding {
  const weights = new Map<string, number>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => /^\s*q\s*=\s*([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined);
    weights.set(name, q === undefined ? 1 : Number(q) || 0);
  }
  const weight = (name: string) => weights.get(name) ?? weights.get('*') ?? 0;
  for (const encoding of ['br', 'gzip'] as const) if (have.has(encoding) && weight(encoding) > 0) return encoding;
  return 'identity';
}

const etagOf = (hash: string, encoding: Encoding) => `"${hash}${encoding === 'identity' ? '' : `-${encoding}`}"`;

/** Whether If-None-Match names this file's content, in any encoding (or is `*`). */
function unchanged(header: string | undefined, hash: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  return header.split(',').some((tag) => tag.trim().replace(/^W\//, '').replace(/"/g, '').split('-')[0] === hash);
}

export type CachePolicy = 'revalidate' | 'immutable' | { maxAgeSeconds: number };

const CACHE_CONTROL = (policy: CachePolicy) =>
  policy === 'revalidate' ? 'no-cache' : policy === 'immutable' ? 'public, max-age=31536000, immutable' : `public, max-age=${policy.maxAgeSeconds}`;

/** Answers `file`: 304 when the client has it, else its best encoding, each with its ETag. */
export function sendBuilt(
  req: IncomingMessage,
  res: ServerResponse,
  file: BuiltFile,
  type: string,
  policy: CachePolicy,
  headers: Record<string, string> = {},
): void {
  const encoding = chooseEncoding(req.headers['accept-encoding'], new Set(Object.keys(file.bodies) as Encoding[]));
  const common = { 'cache-control': CACHE_CONTROL(policy), etag: etagOf(file.hash, encoding), vary: 'Accept-Encoding', ...headers };
  if (unchanged(req.headers['if-none-match'], file.hash)) {
    res.writeHead(304, common).end();
    return;
  }
  const body = file.bodies[encoding]!;
  res
    .writeHead(200, {
      'content-type': type,
      'content-length': String(body.length),
      ...(encoding === 'identity' ? {} : { 'content-encoding': encoding }),
      ...common,
    })
    .end(body);
}

/** `name.ext` → `name.<hash>.ext`: the name under which a file may be cached for good. */
export const hashedName = (name: string, hash: string) => name.replace(/(\.[^.]+)$/, `.${hash}$1`);

/** `name.<16 hex>.ext` → { name: 'name.ext', hash }, or undefined for a plain name. */
export function splitHashedName(name: string): { name: string; hash: string } | undefined {
  const found = /^(.+)\.([0-9a-f]{16})(\.[a-z]+)$/.exec(name);
  return found ? { name: found[1]! + found[3]!, hash: found[2]! } : undefined;
}

// Request bodies: a size limit on every one (413 before buffering more), JSON and UTF-8
// checked, and a client that goes away mid-body is an error for this request only.
import type { IncomingMessage } from 'node:http';
import { Invalid, TooLarge } from '../domain/errors.ts';

export const MAX_BODY_BYTES = 16 * 1024;

export async function readBody(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? 0);
  if (declared > limit) throw new TooLarge(`Request body is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new TooLarge(`Request body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Reads a JSON body, refusing more than `limit` (413), anything but JSON, and invalid UTF-8 (400). */
export async function readJson(req: IncomingMessage, limit = MAX_BODY_BYTES): Promise<unknown> {
  if (!/^application\/json\b/i.test(req.headers['content-type'] ?? '')) {
    throw new Invalid('Request body must be JSON (content-type: application/json)');
  }
  const bytes = await readBody(req, limit);
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new Invalid('Request body is not valid UTF-8');
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new Invalid('Request body is not valid JSON');
  }
}

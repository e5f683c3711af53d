// Opaque ids in answers: the audit log's and the balance statement's rows are
// numbered across the whole service, so their numbers showed a merchant how many writes other
// merchants made between two of its own. Each is answered, and paged by, one AES-256 block of
// (its list's tag, the number) under a key of the service's secrets (factors/secret-box.ts):
// 22 characters that say nothing of the order or the count, read back only by the same list.
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';

const TEXT = /^[A-Za-z0-9_-]{22}$/;

export class OpaqueIds {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('an opaque ids key is 32 bytes');
  }

  private static tag = (list: string) => createHash('sha256').update(`opaque id:${list}`).digest().subarray(0, 8);

  /** The number `n` of `list`, as the answers show it. */
  text(list: string, n: number): string {
    const block = Buffer.alloc(16);
    OpaqueIds.tag(list).copy(block, 0);
    block.writeBigUInt64BE(BigInt(n), 8);
    const cipher = createCipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    return Buffer.concat([cipher.update(block), cipher.final()]).toString('base64url');
  }

  /** The number behind an opaque id of `list`; undefined for text no id of that list. */
  number(list: string, text: string): number | undefined {
    if (!TEXT.test(text)) return undefined;
    const raw = Buffer.from(text, 'base64url');
    if (raw.length !== 16) return undefined;
    const decipher = createDecipheriv('aes-256-ecb', this.key, null).setAutoPadding(false);
    const block = Buffer.concat([decipher.update(raw), decipher.final()]);
    if (!block.subarray(0, 8).equals(OpaqueIds.tag(list))) return undefined;
    const n = block.readBigUInt64BE(8);
    return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : undefined;
  }
}

// Idempotency keys (domain/idempotency.ts): one row per (scope, key) holding a digest of the
// request, the lease of the request executing it, and then its first answer. The primary key
// makes one request of several at once the executing one, on any number of instances sharing
// the database; the others read its row and wait for the answer.
import type { KeyedRequest, StoredKey } from '../domain/idempotency.ts';
import type { Database, Row } from './db.ts';

/** An answer as it is kept: status, JSON body as text (null: none, or withheld), headers. */
export interface KeptAnswer {
  status: number;
  body: string | null;
  headers: Record<string, string>;
  withheld: boolean;
}

const storedOf = (r: Row): StoredKey => ({
  endpoint: r.endpoint as string,
  fingerprint: r.fingerprint as string,
  state: r.state as StoredKey['state'],
  holder: r.holder as string,
  leaseUntilMs: Number(r.lease_until_ms),
  createdMs: Number(r.created_ms),
  ...(r.status === null
    ? {}
    : {
        status: Number(r.status),
        body: (r.body as string | null) ?? null,
        headers: r.headers ? (JSON.parse(r.headers as string) as Record<string, string>) : {},
        withheld: r.withheld === true,
      }),
});

export class IdempotencyStore {
  constructor(private readonly db: Database) {}

  /**
   * Claims the key for `holder` (the row made, or one kept longer than `keepMs` made anew):
   * 'claimed'. Otherwise what is stored under it, or undefined when it vanished in between
   * (released a moment ago): ask again.
   */
  async claim(
    scope: string,
    key: string,
    request: KeyedRequest,
    holder: string,
    nowMs: number,
    leaseMs: number,
    keepMs: number,
  ): Promise<'claimed' | StoredKey | undefined> {
    const made = await this.db.query(
      `INSERT INTO idempotency_keys (scope, key, endpoint, fingerprint, state, holder, lease_until_ms, created_ms)
       VALUES ($1, $2, $3, $4, 'running', $5, $6, $7)
       ON CONFLICT (scope, key) DO UPDATE SET endpoint = $3, fingerprint = $4, state = 'running', holder = $5, lease_until_ms = $6, created_ms = $7,
         status = NULL, body = NULL, headers = NULL, withheld = false
         WHERE idempotency_keys.created_ms <= $8
       RETURNING holder`,
      [scope, key, request.endpoint, request.fingerprint, holder, nowMs + leaseMs, nowMs, nowMs - keepMs],
    );
    if (made.length === 1) return 'claimed';
    const [row] = await this.db.query(`SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2`, [scope, key]);
    return row ? storedOf(row) : undefined;
  }

  /** Takes over a key whose holder's lease ran out (it stopped answering); false when another did first. */
  async takeOver(scope: string, key: string, from: string, holder: string, nowMs: number, leaseMs: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE idempotency_keys SET holder = $4, lease_until_ms = $6 WHERE scope = $1 AND key = $2 AND holder = $3 AND state = 'running' AND lease_until_ms <= $5 RETURNING 1`,
      [scope, key, from, holder, nowMs, nowMs + leaseMs],
    );
    return rows.length === 1;
  }

  /** Renews the holder's lease while its request executes; false once it is not the holder. */
  async renew(scope: string, key: string, holder: string, nowMs: number, leaseMs: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE idempotency_keys SET lease_until_ms = $4 WHERE scope = $1 AND key = $2 AND holder = $3 AND state = 'running' RETURNING 1`,
      [scope, key, holder, nowMs + leaseMs],
    );
    return rows.length === 1;
  }

  /** Keeps the holder's answer: the key's requests answer it from now on. */
  async finish(scope: string, key: string, holder: string, answer: KeptAnswer): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE idempotency_keys SET state = 'done', status = $4, body = $5, headers = $6, withheld = $7 WHERE scope = $1 AND key = $2 AND holder = $3 AND state = 'running' RETURNING 1`,
      [scope, key, holder, answer.status, answer.body, JSON.stringify(answer.headers), answer.withheld],
    );
    return rows.length === 1;
  }

  /** Lets the key go (an answer not kept: a retry executes again). */
  async release(scope: string, key: string, holder: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE scope = $1 AND key = $2 AND holder = $3 AND state = 'running'`, [scope, key, holder]);
  }

  /** Removes keys made before `beforeMs` (a day ago): how many. */
  async purge(beforeMs: number): Promise<number> {
    const rows = await this.db.query(`DELETE FROM idempotency_keys WHERE created_ms <= $1 RETURNING 1`, [beforeMs]);
    return rows.length;
  }

  /** What is stored under a key (tests, and the operator's eyes). */
  async get(scope: string, key: string): Promise<StoredKey | undefined> {
    const [row] = await this.db.query(`SELECT * FROM idempotency_keys WHERE scope = $1 AND key = $2`, [scope, key]);
    return row ? storedOf(row) : undefined;
  }
}

// Second factors: each person's passkeys and authenticator-app secrets, their
// recovery codes (hashes only, each used once), the challenges handed out (single-use, taken
// by deleting them), the owner's requirement, and a session's step-up. A person is `holder`
// (`owner` or a member's id) within a merchant. Each use is one conditional UPDATE, so two
// requests with the same code or counter cannot both pass, on one instance or several.
import { randomUUID } from 'node:crypto';
import type { SecretBox } from './secret-box.ts';
import type { Database, Row, Sql } from '../storage/db.ts';

export interface Factor {
  id: string;
  kind: 'passkey' | 'totp';
  label: string;
  createdMs: number;
  usedMs?: number;
  /** A passkey's credential (base64url id, COSE public key base64url, signature counter, transports). */
  credentialId?: string;
  publicKey?: string;
  counter: number;
  transports?: string[];
  /** An authenticator's secret (base32) and the last time step a code was taken for. */
  totpSecret?: string;
  totpLastStep: number;
}

/**
 * What a sealed secret is bound to (its associated data): a factor's own id (it stays the
 * factor's when ownership is handed over), an enrolment's challenge the person's.
 */
const whoseOf = (who: Who) => `challenge:${who.merchantId}/${who.holder}`;
const factorAad = (id: string) => `factor:${id}`;

const factorOf = (r: Row, box: SecretBox): Factor => ({
  id: r.id as string,
  kind: r.kind as Factor['kind'],
  label: r.label as string,
  createdMs: Number(r.created_ms),
  ...(r.used_ms === null ? {} : { usedMs: Number(r.used_ms) }),
  ...(r.credential_id ? { credentialId: r.credential_id as string, publicKey: r.public_key as string } : {}),
  counter: Number(r.counter),
  ...(r.transports ? { transports: (r.transports as string).split(',') } : {}),
  ...(r.totp_secret ? { totpSecret: box.open(r.totp_secret as string, factorAad(r.id as string)) } : {}),
  totpLastStep: Number(r.totp_last_step),
});

/** The kinds of proof counted apart. */
export type ProofKind = 'totp' | 'passkey' | 'recovery_code';

export interface Who {
  merchantId: string;
  holder: string;
}

export class FactorStore {
  /** `box`: seals authenticator secrets (in second_factors and the enrolment's challenge), never kept in plain text. */
  constructor(
    private readonly db: Database,
    private readonly box: SecretBox,
  ) {}

  async factors(who: Who): Promise<Factor[]> {
    const rows = await this.db.query('SELECT * FROM second_factors WHERE merchant_id = $1 AND holder = $2 ORDER BY created_ms, id', [
      who.merchantId,
      who.holder,
    ]);
    return rows.map((r) => factorOf(r, this.box));
  }

  /**
   * Seals the authenticator secrets kept in plain text before sealing was (at start, once per
   * row: a row sealed already is left alone). Answers how many it sealed. Refuses (at start)
   * a key that does not open the secrets sealed already: another instance's, or a lost one.
   */
  async sealPlainSecrets(): Promise<number> {
    const [one] = await this.db.query(`SELECT id, totp_secret FROM second_factors WHERE totp_secret LIKE 'sealed:v1:%' LIMIT 1`);
    if (one) {
      try {
        this.box.open(one.totp_secret as string, factorAad(one.id as string));
      } catch {
        throw new Error(
          'The secrets key does not open the authenticator secrets this database holds: every instance sharing it needs the same key (DATA_DIR/secrets-key, docs/team.md)',
        );
      }
    }
    let sealed = 0;
    const plain = (column: string) => `${column} IS NOT NULL AND ${column} NOT LIKE 'sealed:v1:%'`;
    for (const r of await this.db.query(`SELECT id, totp_secret FROM second_factors WHERE ${plain('totp_secret')}`)) {
      sealed += (
        await this.db.query(`UPDATE second_factors SET totp_secret = $2 WHERE id = $1 AND totp_secret = $3 RETURNING id`, [
          r.id,
          this.box.seal(r.totp_secret as string, factorAad(r.id as string)),
          r.totp_secret,
        ])
      ).length;
    }
    for (const r of await this.db.query(`SELECT merchant_id, holder, challenge FROM factor_challenges WHERE purpose = 'totp' AND ${plain('challenge')}`)) {
      const whose = whoseOf({ merchantId: r.merchant_id as string, holder: r.holder as string });
      sealed += (
        await this.db.query(
          `UPDATE factor_challenges SET challenge = $3 WHERE merchant_id = $1 AND holder = $2 AND purpose = 'totp' AND challenge = $4 RETURNING holder`,
          [r.merchant_id, r.holder, this.box.seal(r.challenge as string, whose), r.challenge],
        )
      ).length;
    }
    return sealed;
  }

  /** A challenge handed out (a new one for the same purpose replaces it). */
  async putChallenge(who: Who, purpose: string, challenge: string, expiresMs: number): Promise<void> {
    await this.db.query(
      `INSERT INTO factor_challenges (merchant_id, holder, purpose, challenge, expires_ms) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (merchant_id, holder, purpose) DO UPDATE SET challenge = $4, expires_ms = $5`,
      [who.merchantId, who.holder, purpose, purpose === 'totp' ? this.box.seal(challenge, whoseOf(who)) : challenge, expiresMs],
    );
  }

  /** Takes the challenge: deleted whether or not it is still alive, so it is answered once at most. */
  async takeChallenge(who: Who, purpose: string, nowMs: number): Promise<string | undefined> {
    const [row] = await this.db.query('DELETE FROM factor_challenges WHERE merchant_id = $1 AND holder = $2 AND purpose = $3 RETURNING challenge, expires_ms', [
      who.merchantId,
      who.holder,
      purpose,
    ]);
    if (!row || Number(row.expires_ms) <= nowMs) return undefined;
    // An authenticator's secret waiting for its first code is sealed as the factor's is.
    return purpose === 'totp' ? this.box.open(row.challenge as string, whoseOf(who)) : (row.challenge as string);
  }

  /** Adds a factor; answers whether it is the person's first (then their recovery codes are made). */
  async add(
    who: Who,
    factor: Omit<Factor, 'id' | 'createdMs' | 'counter' | 'totpLastStep'> & { counter?: number; totpLastStep?: number },
    nowMs: number,
  ): Promise<{ id: string; first: boolean }> {
    return this.db.transaction(async (tx) => {
      const [had] = await tx.query('SELECT count(*)::int AS n FROM second_factors WHERE merchant_id = $1 AND holder = $2', [who.merchantId, who.holder]);
      const id = randomUUID();
      await tx.query(
        `INSERT INTO second_factors (id, merchant_id, holder, kind, label, credential_id, public_key, counter, transports, totp_secret, totp_last_step, created_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
        [
          id,
          who.merchantId,
          who.holder,
          factor.kind,
          factor.label,
          factor.credentialId ?? null,
          factor.publicKey ?? null,
          factor.counter ?? 0,
          factor.transports?.join(',') || null,
          factor.totpSecret === undefined ? null : this.box.seal(factor.totpSecret, factorAad(id)),
          factor.totpLastStep ?? 0,
          nowMs,
        ],
      );
      return { id, first: Number(had.n) === 0 };
    });
  }

  /** Removes one factor; with the last one go the recovery codes. False: no such factor. */
  async remove(who: Who, id: string): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const gone = await tx.query('DELETE FROM second_factors WHERE merchant_id = $1 AND holder = $2 AND id::text = lower($3) RETURNING id', [
        who.merchantId,
        who.holder,
        id,
      ]);
      const [left] = await tx.query('SELECT count(*)::int AS n FROM second_factors WHERE merchant_id = $1 AND holder = $2', [who.merchantId, who.holder]);
      if (Number(left.n) === 0) await tx.query('DELETE FROM recovery_codes WHERE merchant_id = $1 AND holder = $2', [who.merchantId, who.holder]);
      return gone.length > 0;
    });
  }

  /** A passkey's signature counter moves from `from` to `to` (higher), once: false if another request moved it first. */
  async usePasskey(id: string, from: number, to: number, nowMs: number): Promise<boolean> {
    return (
      (await this.db.query('UPDATE second_factors SET counter = $3, used_ms = $4 WHERE id = $1 AND counter = $2 RETURNING id', [id, from, to, nowMs])).length >
      0
    );
  }

  /** Takes an authenticator code's time step, once: false when this step or a later one was taken already. */
  async useTotpStep(id: string, step: number, nowMs: number): Promise<boolean> {
    return (
      (await this.db.query('UPDATE second_factors SET totp_last_step = $2, used_ms = $3 WHERE id = $1 AND totp_last_step < $2 RETURNING id', [id, step, nowMs]))
        .length > 0
    );
  }

  /** The person's recovery codes are these (hashes) from now on; earlier ones stop working. */
  async replaceRecoveryCodes(who: Who, hashes: string[], nowMs: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query('DELETE FROM recovery_codes WHERE merchant_id = $1 AND holder = $2', [who.merchantId, who.holder]);
      for (const hash of hashes)
        await tx.query('INSERT INTO recovery_codes (hash, merchant_id, holder, created_ms) VALUES ($1, $2, $3, $4)', [hash, who.merchantId, who.holder, nowMs]);
    });
  }

  /** Uses a recovery code once: false for one unknown, another person's or used already. */
  async useRecoveryCode(who: Who, hash: string, nowMs: number): Promise<boolean> {
    return (
      (
        await this.db.query('UPDATE recovery_codes SET used_ms = $4 WHERE hash = $1 AND merchant_id = $2 AND holder = $3 AND used_ms IS NULL RETURNING hash', [
          hash,
          who.merchantId,
          who.holder,
          nowMs,
        ])
      ).length > 0
    );
  }

  async recoveryCodesLeft(who: Who): Promise<number> {
    const [row] = await this.db.query('SELECT count(*)::int AS n FROM recovery_codes WHERE merchant_id = $1 AND holder = $2 AND used_ms IS NULL', [
      who.merchantId,
      who.holder,
    ]);
    return Number(row.n);
  }

  /** Whether the owner requires a second factor of every member. */
  async required(merchantId: string): Promise<boolean> {
    const [row] = await this.db.query('SELECT required FROM second_factor_policy WHERE merchant_id = $1', [merchantId]);
    return row?.required === true;
  }

  async setRequired(merchantId: string, required: boolean, nowMs: number): Promise<void> {
    await this.db.query(
      `INSERT INTO second_factor_policy (merchant_id, required, updated_ms) VALUES ($1, $2, $3)
       ON CONFLICT (merchant_id) DO UPDATE SET required = $2, updated_ms = $3`,
      [merchantId, required, nowMs],
    );
  }

  /**
   * A try at proving a factor of `kind`, taken before the proof is checked, in the
   * database (every instance counts the same, whatever the client's address): the tries since
   * the last proof that passed, this one included, and whether the kind is locked.
   */
  async takeTry(who: Who, kind: ProofKind, nowMs: number): Promise<{ tries: number; locked: boolean }> {
    const [row] = await this.db.query(
      `INSERT INTO step_up_tries (merchant_id, holder, kind, tries, locked_ms, updated_ms) VALUES ($1, $2, $3, 1, NULL, $4)
       ON CONFLICT (merchant_id, holder, kind) DO UPDATE SET tries = step_up_tries.tries + 1, updated_ms = $4 RETURNING tries, locked_ms`,
      [who.merchantId, who.holder, kind, nowMs],
    );
    return { tries: Number(row.tries), locked: row.locked_ms !== null };
  }

  /** A try that was no guess (a code used already): given back. */
  async giveBackTry(who: Who, kind: ProofKind): Promise<void> {
    await this.db.query('UPDATE step_up_tries SET tries = greatest(tries - 1, 0) WHERE merchant_id = $1 AND holder = $2 AND kind = $3', [
      who.merchantId,
      who.holder,
      kind,
    ]);
  }

  /** Locks the kind once `limit` tries failed; true for the one call that locked it (to tell the person once). */
  async lockAfter(who: Who, kind: ProofKind, limit: number, nowMs: number): Promise<boolean> {
    const rows = await this.db.query(
      'UPDATE step_up_tries SET locked_ms = $5 WHERE merchant_id = $1 AND holder = $2 AND kind = $3 AND tries >= $4 AND locked_ms IS NULL RETURNING kind',
      [who.merchantId, who.holder, kind, limit, nowMs],
    );
    return rows.length > 0;
  }

  /** The person's tries forgotten and locks lifted (`kinds`; all when not given): a proof passed, a recovery code used, the owner unlocked. Answers the kinds that were locked. */
  async clearTries(who: Who, kinds?: ProofKind[]): Promise<ProofKind[]> {
    const rows = await this.db.query(
      'DELETE FROM step_up_tries WHERE merchant_id = $1 AND holder = $2 AND ($3::text[] IS NULL OR kind = ANY($3::text[])) RETURNING kind, locked_ms',
      [who.merchantId, who.holder, kinds ?? null],
    );
    return rows.filter((r) => r.locked_ms !== null).map((r) => r.kind as ProofKind);
  }
}

/**
 * Ownership handed over (team/store.ts, in its transaction): the step-up tries and locks are
 * the person's, as their factors are, so the owner's go to `memberId` (the former owner's member
 * id) and the new owner's to 'owner'; else a lock on the former owner would fall on the new one,
 * and a new owner locked out would be unlocked by the hand-over. In three steps, as the holder is
 * part of the key.
 */
export async function handStepUpTriesOver(tx: Sql, merchantId: string, memberId: string): Promise<void> {
  const swap = '~handing-over';
  await tx.query(`UPDATE step_up_tries SET holder = $2 WHERE merchant_id = $1 AND holder = 'owner'`, [merchantId, swap]);
  await tx.query(`UPDATE step_up_tries SET holder = 'owner' WHERE merchant_id = $1 AND holder = $2`, [merchantId, memberId]);
  await tx.query('UPDATE step_up_tries SET holder = $3 WHERE merchant_id = $1 AND holder = $2', [merchantId, swap, memberId]);
}

/** A person removed from the team (team/store.ts, in its transaction): their second factors and recovery codes go with them. */
export async function forgetFactorsOf(tx: Sql, merchantId: string, holder: string): Promise<void> {
  for (const table of ['second_factors', 'recovery_codes']) await tx.query(`DELETE FROM ${table} WHERE merchant_id = $1 AND holder = $2`, [merchantId, holder]);
}

/** Ownership handed over (team/store.ts, in its transaction): second factors are the person's, so the new owner's go with them, and the former owner's with theirs. */
export async function handFactorsOver(tx: Sql, merchantId: string, memberId: string): Promise<void> {
  for (const table of ['second_factors', 'recovery_codes']) {
    await tx.query(`UPDATE ${table} SET holder = CASE holder WHEN 'owner' THEN $2 ELSE 'owner' END WHERE merchant_id = $1 AND holder IN ('owner', $2)`, [
      merchantId,
      memberId,
    ]);
  }
}

/** A person's second factor as their dashboard session reads it (dashboard/store.ts): whether they have one, whether the owner requires one. */
export async function factorState(sql: Sql, merchantId: string, holder: string): Promise<{ enrolled: boolean; required: boolean }> {
  const [row] = await sql.query(
    `SELECT EXISTS (SELECT 1 FROM second_factors WHERE merchant_id = $1 AND holder = $2) AS enrolled,
            COALESCE((SELECT required FROM second_factor_policy WHERE merchant_id = $1), false) AS required`,
    [merchantId, holder],
  );
  return { enrolled: row.enrolled === true, required: row.required === true };
}

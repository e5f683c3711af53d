// Merchants, their API keys (hashes only) and their webhook endpoint and signing secrets.
import { randomUUID } from 'node:crypto';
import type { KeyMode } from '../../contract/keys.ts';
import type { Account, Merchant } from '../domain/account.ts';
import {
  checkFullKeyHolder,
  checkKeyHolder,
  hashKey,
  KEY_USE_EVERY_MS,
  keyAccount,
  keyHint,
  newKeys,
  newWebhookSecret,
  type KeyMaker,
  type RestrictedKeyRow,
} from './keys-rules.ts';
export type { KeyMaker, RestrictedKeyRow } from './keys-rules.ts';
export { merchantRows } from './account-store.ts';
import { grantsOf, storedGrants, type Permission } from '../domain/permissions.ts';
import { auditedTransaction } from '../storage/audit.ts';
import type { Database, Row, Sql } from '../storage/db.ts';
import { notifyAccountChange } from '../storage/account-cache.ts';
import { sendParked } from '../storage/events.ts';
import type { memberRole as roleOf } from '../team/store.ts';
import { applyDue } from '../storage/destination-changes.ts';

export interface MerchantSeed extends Merchant {
  keys: Record<KeyMode, { publicKey: string; secretKey: string }>;
  /** Webhook signing secrets per mode; made when missing. */
  webhookSecrets?: Partial<Record<KeyMode, string>>;
}

export interface CreatedMerchant extends MerchantSeed {
  webhookSecrets: Record<KeyMode, string>;
}

export interface WebhookEndpoint {
  url: string | null;
  secret: string;
  previousSecret: string | null;
  previousUntilMs: number | null;
}

const merchantOf = (r: Row): Merchant => ({
  id: r.id as string,
  businessName: r.business_name as string,
  businessEmail: r.business_email as string,
  businessLogo: r.business_logo as string,
});

const MODES: KeyMode[] = ['test', 'live'];

export class MerchantStore {
  /** `memberRole` (team/store.ts), read in this store's transactions: a member's key is never wider than their role. `now`: the clock keys expire by. */
  constructor(
    private readonly db: Database,
    private readonly memberRole: typeof roleOf,
    private readonly now: () => number = Date.now,
    /** Told a merchant's keys, profile or payout addresses changed, once committed (the account cache). */
    private readonly changed: (merchantId: string) => void = () => {},
  ) {}

  /** When this instance last wrote each restricted key's use (keyUsed). */
  private readonly keyUses = new Map<string, number>();

  /** A new merchant with fresh test and live keys and webhook secrets, returned this once. */
  async create(profile: Omit<Merchant, 'id'>, nowMs: number): Promise<CreatedMerchant> {
    return this.seed({ id: randomUUID(), ...profile, keys: { test: newKeys('test'), live: newKeys('live') } }, nowMs);
  }

  /**
   * Makes sure a merchant with exactly these keys exists (the demo's, or a test's): the
   * profile is updated, keys are added when missing, webhook secrets kept when present.
   */
  async seed(seed: MerchantSeed, nowMs: number): Promise<CreatedMerchant> {
    return this.db
      .transaction(async (tx) => {
        await tx.query(
          `INSERT INTO merchants (id, business_name, business_email, business_logo, created_ms) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (id) DO UPDATE SET business_name = $2, business_email = $3, business_logo = $4`,
          [seed.id, seed.businessName, seed.businessEmail, seed.businessLogo, nowMs],
        );
        const secrets = {} as Record<KeyMode, string>;
        for (const mode of MODES) {
          for (const [kind, key] of [
            ['public', seed.keys[mode].publicKey],
            ['secret', seed.keys[mode].secretKey],
          ] as const) {
            await tx.query(
              `INSERT INTO api_keys (hash, public_text, merchant_id, mode, kind, hint, created_ms) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (hash) DO NOTHING`,
              [hashKey(key), kind === 'public' ? key : null, seed.id, mode, kind, keyHint(key), nowMs],
            );
          }
          const wanted = seed.webhookSecrets?.[mode] ?? newWebhookSecret();
          const [row] = await tx.query(
            `INSERT INTO webhook_endpoints (merchant_id, mode, url, secret) VALUES ($1, $2, NULL, $3)
           ON CONFLICT (merchant_id, mode) DO UPDATE SET merchant_id = EXCLUDED.merchant_id RETURNING secret`,
            [seed.id, mode, wanted],
          );
          secrets[mode] = row.secret as string;
        }
        await notifyAccountChange(tx, seed.id);
        return { ...seed, webhookSecrets: secrets };
      })
      .finally(() => this.changed(seed.id));
  }

  /** The account a key opens, or undefined for a key nobody holds (or one rolled whose delay has run out). */
  async authenticate(key: string, kind: 'public' | 'secret'): Promise<Account | undefined> {
    return keyAccount(await this.keyOwner(key, kind), this.now());
  }

  /** The account a key opens and when it stops working (null: not rolled), whatever the time now: what the account cache keeps. */
  async keyOwner(key: string, kind: 'public' | 'secret'): Promise<{ account: Account; revokedAfterMs: number | null } | undefined> {
    const [row] = await this.db.query(
      `SELECT m.*, k.mode, k.revoked_after_ms AS key_revoked_after_ms, k.permissions AS key_permissions, k.id AS key_id, k.name AS key_name, k.hint AS key_hint, k.holder AS key_holder, k.expires_ms AS key_expires_ms
         FROM api_keys k JOIN merchants m ON m.id = k.merchant_id WHERE k.hash = $1 AND k.kind = $2`,
      [hashKey(key), kind],
    );
    if (!row) return undefined;
    const revokedAfterMs = row.key_revoked_after_ms === null ? null : Number(row.key_revoked_after_ms);
    const account: Account = { merchant: merchantOf(row), mode: row.mode as KeyMode, via: kind };
    if (kind === 'secret') {
      // Who acts, for the audit log: the key's id (a restricted key's) or its hint, never the key.
      account.grants = grantsOf(row.key_permissions as string | null);
      account.actor = {
        kind: 'key',
        id: (row.key_id as string | null) ?? (row.key_hint as string),
        label: row.key_name ? `${row.key_name as string} (${row.key_hint as string})` : (row.key_hint as string),
      };
      if (row.key_holder) account.holder = row.key_holder as string;
      if (row.key_id) account.keyId = String(row.key_id);
      if (row.key_expires_ms !== null && row.key_expires_ms !== undefined) account.keyExpiresMs = Number(row.key_expires_ms);
    }
    return { account, revokedAfterMs };
  }

  /**
   * A restricted secret key of the account's mode with these permissions: its secret
   * answered this once. `holder`: the person it belongs to ('owner' or a member's id;
   * null when a holder-less full key made it), whose removal revokes it and whose demotion
   * narrows it. A member holder must still be one, and the key no wider than their role now: a
   * full key a member rolled (holder theirs) outlives their removal until the owner rolls it,
   * and must not mint keys that outlive it (the member row is locked against a removal meanwhile).
   */
  async createRestrictedKey(
    account: Pick<Account, 'merchant' | 'mode'>,
    name: string,
    permissions: Permission[],
    nowMs: number,
    createdBy: KeyMaker,
    holder: string | null,
    expiresMs: number | null = null,
  ): Promise<RestrictedKeyRow & { secretKey: string }> {
    const secretKey = newKeys(account.mode).secretKey;
    const id = randomUUID();
    await auditedTransaction(this.db, async (tx) => {
      if (holder !== null && holder !== 'owner') checkKeyHolder(await this.memberRole(tx, account.merchant.id, holder), permissions);
      await tx.query(
        `INSERT INTO api_keys (hash, public_text, merchant_id, mode, kind, hint, created_ms, permissions, id, name, created_by, holder, expires_ms) VALUES ($1, NULL, $2, $3, 'secret', $4, $5, $6, $7, $8, $9, $10, $11)`,
        [
          hashKey(secretKey),
          account.merchant.id,
          account.mode,
          keyHint(secretKey),
          nowMs,
          storedGrants(permissions),
          id,
          name,
          JSON.stringify(createdBy),
          holder,
          expiresMs,
        ],
      );
      return { id };
    });
    return {
      id,
      name,
      mode: account.mode,
      hint: keyHint(secretKey),
      permissions: [...new Set(permissions)].sort(),
      createdMs: nowMs,
      createdBy,
      expiresMs,
      lastUsedMs: null,
      lastUsedFrom: null,
      secretKey,
    };
  }

  async restrictedKeys(account: Pick<Account, 'merchant' | 'mode'>): Promise<RestrictedKeyRow[]> {
    const rows = await this.db.query(
      `SELECT * FROM api_keys WHERE merchant_id = $1 AND mode = $2 AND kind = 'secret' AND permissions IS NOT NULL ORDER BY created_ms, id`,
      [account.merchant.id, account.mode],
    );
    const ms = (v: unknown) => (v === null || v === undefined ? null : Number(v));
    return rows.map((r) => ({
      id: r.id as string,
      name: r.name as string,
      mode: r.mode as KeyMode,
      hint: r.hint as string,
      permissions: grantsOf(r.permissions as string) as Permission[],
      createdMs: Number(r.created_ms),
      createdBy: r.created_by ? (JSON.parse(r.created_by as string) as KeyMaker) : null,
      expiresMs: ms(r.expires_ms),
      lastUsedMs: ms(r.last_used_ms),
      lastUsedFrom: (r.last_used_client as string | null) ?? null,
    }));
  }

  /**
   * A restricted key was used: when and from which client address, written at most
   * once a minute per key (this instance remembers when it last wrote each; the UPDATE skips a
   * row another instance wrote within the minute), so a busy key costs one write a minute.
   */
  async keyUsed(keyId: string, client: string, nowMs: number): Promise<void> {
    const last = this.keyUses.get(keyId);
    if (last !== undefined && nowMs - last < KEY_USE_EVERY_MS) return;
    if (this.keyUses.size > 10_000) this.keyUses.clear();
    // The time kept (this write's, or another instance's within the minute): the next write is a minute after it.
    const [row] = await this.db.query(
      `WITH kept AS (SELECT last_used_ms FROM api_keys WHERE id = $1),
            written AS (UPDATE api_keys SET last_used_ms = $2, last_used_client = $3 WHERE id = $1 AND (last_used_ms IS NULL OR last_used_ms <= $4) RETURNING last_used_ms)
       SELECT COALESCE((SELECT last_used_ms FROM written), (SELECT last_used_ms FROM kept)) AS at`,
      [keyId, nowMs, client.slice(0, 100), nowMs - KEY_USE_EVERY_MS],
      'key_used',
    );
    this.keyUses.set(keyId, row?.at === null || row?.at === undefined ? nowMs : Number(row.at));
  }

  /** Revokes a restricted key at once, on every instance (its cached account is dropped): its name and person, to tell. Undefined: no such key. */
  async revokeRestrictedKey(account: Pick<Account, 'merchant' | 'mode'>, id: string): Promise<{ id: string; name: string; holder: string | null } | undefined> {
    return auditedTransaction(this.db, async (tx) => {
      const [gone] = await tx.query(
        `DELETE FROM api_keys WHERE merchant_id = $1 AND mode = $2 AND id = $3 AND permissions IS NOT NULL RETURNING id, name, holder`,
        [account.merchant.id, account.mode, id],
      );
      await notifyAccountChange(tx, account.merchant.id);
      return gone && { id: String(gone.id), name: gone.name as string, holder: (gone.holder as string | null) ?? null };
    }).finally(() => this.changed(account.merchant.id));
  }

  /** The account's public key, for pages the service itself serves (hosted payment links). */
  async publicKey(account: Pick<Account, 'merchant' | 'mode'>): Promise<string> {
    const [row] = await this.db.query(
      `SELECT public_text FROM api_keys WHERE merchant_id = $1 AND mode = $2 AND kind = 'public' ORDER BY created_ms DESC LIMIT 1`,
      [account.merchant.id, account.mode],
    );
    return row.public_text as string;
  }

  async byId(id: string): Promise<Merchant | undefined> {
    const [row] = await this.db.query('SELECT * FROM merchants WHERE id = $1', [id]);
    return row && merchantOf(row);
  }

  /**
   * The merchant's payout address for a mode's chain, where its deposits are swept; undefined if
   * none. A live key's new address counts from its time (merchants/destination-store.ts), not before.
   */
  async payoutAddress(merchantId: string, mode: string, chainId: number): Promise<string | undefined> {
    return (await this.payoutAddressUntil(merchantId, mode, chainId)).address;
  }

  /**
   * The payout address as payoutAddress answers it, and until when that answer holds: the time
   * the chain's first change still waiting takes effect (null: none waits). What the account
   * cache keeps, until then.
   */
  async payoutAddressUntil(merchantId: string, mode: string, chainId: number): Promise<{ address: string | undefined; untilMs: number | null }> {
    await applyDue(this.db, merchantId, mode, this.now());
    const [row] = await this.db.query(
      `SELECT (SELECT address FROM payout_addresses WHERE merchant_id = $1 AND mode = $2 AND chain_id = $3) AS address,
              (SELECT min(effective_ms) FROM destination_changes WHERE merchant_id = $1 AND mode = $2 AND kind = 'payout_address' AND chain_id = $3 AND state = 'pending') AS until_ms`,
      [merchantId, mode, chainId],
      'payout_address_until',
    );
    return {
      address: (row?.address as string | null) ?? undefined,
      untilMs: row?.until_ms === null || row?.until_ms === undefined ? null : Number(row.until_ms),
    };
  }

  async payoutAddresses(merchantId: string, mode: string): Promise<Array<{ chainId: number; address: string }>> {
    await applyDue(this.db, merchantId, mode, this.now());
    const rows = await this.db.query(`SELECT chain_id, address FROM payout_addresses WHERE merchant_id = $1 AND mode = $2 ORDER BY chain_id`, [
      merchantId,
      mode,
    ]);
    return rows.map((r) => ({ chainId: Number(r.chain_id), address: r.address as string }));
  }

  /** At once, whatever the mode: for the demo and tests' setup (a key's request goes through DestinationStore.setPayoutAddress). */
  async setPayoutAddress(merchantId: string, mode: string, chainId: number, address: string): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO payout_addresses (merchant_id, mode, chain_id, address) VALUES ($1, $2, $3, $4)
         ON CONFLICT (merchant_id, mode, chain_id) DO UPDATE SET address = $4`,
        [merchantId, mode, chainId, address],
      );
      await notifyAccountChange(tx, merchantId);
    });
    this.changed(merchantId);
  }

  /**
   * New secret keys, test and live, for a merchant whose keys were lost or leaked: the old ones
   * stop working at once. Public keys stay (pages carry them). Undefined for an unknown merchant.
   * `modes`: both by default (the operator's roll-keys); the merchant's own roll names its one.
   * `revokeOldAfterMs` (the merchant's roll): the old keys keep working that long, so servers
   * can move to the new one, and are refused from then; 0 refuses them now. A key already
   * rolled with a delay keeps the earlier of its end and this one. `keepRestricted` (the
   * merchant's own roll): restricted keys stay; the operator's roll, for keys lost or leaked,
   * revokes them too, or a leaked restricted key would go on working after it. `holder`: whose
   * the new key is; a member must still be one with every permission (an admin), or a full key an
   * admin rolled would roll itself on after they were demoted or removed.
   */
  async rollSecretKeys(
    merchantId: string,
    nowMs: number,
    modes: KeyMode[] = MODES,
    revokeOldAfterMs = 0,
    keepRestricted = false,
    holder: string | null = null,
  ): Promise<Record<KeyMode, string> | undefined> {
    return auditedTransaction(this.db, async (tx) => {
      const [merchant] = await tx.query('SELECT id FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
      if (!merchant) return undefined;
      if (holder !== null && holder !== 'owner') checkFullKeyHolder(await this.memberRole(tx, merchantId, holder));
      if (revokeOldAfterMs > 0) {
        const until = nowMs + revokeOldAfterMs;
        await tx.query(
          `DELETE FROM api_keys WHERE merchant_id = $1 AND kind = 'secret' AND mode = ANY($2::text[]) AND revoked_after_ms <= $3 AND permissions IS NULL`,
          [merchantId, modes, nowMs],
        );
        await tx.query(
          `UPDATE api_keys SET revoked_after_ms = LEAST(COALESCE(revoked_after_ms, $3), $3) WHERE merchant_id = $1 AND kind = 'secret' AND mode = ANY($2::text[]) AND permissions IS NULL`,
          [merchantId, modes, until],
        );
      } else {
        // The full secret key is rolled; restricted keys stay on the merchant's roll (each is revoked by itself).
        await tx.query(
          `DELETE FROM api_keys WHERE merchant_id = $1 AND kind = 'secret' AND mode = ANY($2::text[]) AND (permissions IS NULL OR NOT $3::boolean)`,
          [merchantId, modes, keepRestricted],
        );
      }
      const keys = {} as Record<KeyMode, string>;
      for (const mode of modes) {
        keys[mode] = newKeys(mode).secretKey;
        await tx.query(
          `INSERT INTO api_keys (hash, public_text, merchant_id, mode, kind, hint, created_ms, holder) VALUES ($1, NULL, $2, $3, 'secret', $4, $5, $6)`,
          [hashKey(keys[mode]), merchantId, mode, keyHint(keys[mode]), nowMs, holder],
        );
      }
      await notifyAccountChange(tx, merchantId);
      return keys;
    }).finally(() => this.changed(merchantId));
  }

  /**
   * The business as customers see it: a new name, e-mail or logo URL (each left as it is when
   * not given). The e-mail is also the one the owner signs in with to the dashboard.
   */
  /** A new business name or logo (the e-mail changes through changeEmail only). */
  async updateProfile(merchantId: string, change: Partial<Pick<Merchant, 'businessName' | 'businessLogo'>>): Promise<Merchant | undefined> {
    return this.db
      .transaction(async (tx) => {
        const [row] = await tx.query(
          `UPDATE merchants SET business_name = COALESCE($2, business_name), business_logo = COALESCE($3, business_logo) WHERE id = $1 RETURNING *`,
          [merchantId, change.businessName ?? null, change.businessLogo ?? null],
        );
        if (!row) return undefined;
        await notifyAccountChange(tx, merchantId);
        return merchantOf(row);
      })
      .finally(() => this.changed(merchantId));
  }

  /**
   * A transaction for a use case to run the merchant's reads and writes in, with other features'
   * (merchants/business.ts's e-mail change): the use case decides what runs in it; this store
   * lends its database. `changed` is told of the merchant once it ends (the account cache).
   */
  transaction<T>(merchantId: string, work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.db.transaction(work).finally(() => this.changed(merchantId));
  }

  /** The merchant's e-mail, its row locked until the caller's transaction ends (undefined: no such merchant). */
  async lockEmail(tx: Sql, merchantId: string): Promise<string | undefined> {
    const [before] = await tx.query('SELECT business_email FROM merchants WHERE id = $1 FOR UPDATE', [merchantId]);
    return before?.business_email as string | undefined;
  }

  /** Whether another merchant has this e-mail (case aside). */
  async emailTaken(tx: Sql, email: string, merchantId: string): Promise<boolean> {
    return (await tx.query('SELECT 1 FROM merchants WHERE lower(business_email) = lower($1) AND id <> $2 LIMIT 1', [email, merchantId])).length > 0;
  }

  /** The merchant's new e-mail, every instance's cached account told to drop it once the transaction commits. */
  async setEmail(tx: Sql, merchantId: string, email: string): Promise<Merchant> {
    const [row] = await tx.query('UPDATE merchants SET business_email = $2 WHERE id = $1 RETURNING *', [merchantId, email]);
    await notifyAccountChange(tx, merchantId);
    return merchantOf(row!);
  }

  /** A mode's daily limit on its support members' refunds, US cents, as the merchant set it; null where it set none (refunds/store.ts applies the operator's default). */
  async supportRefundLimit(merchantId: string, mode: string): Promise<bigint | null> {
    const [row] = await this.db.query(`SELECT ${supportLimitColumn(mode)}::text AS c FROM merchants WHERE id = $1`, [merchantId]);
    return row?.c != null ? BigInt(row.c as string) : null;
  }

  async setSupportRefundLimit(merchantId: string, mode: string, cents: bigint | null): Promise<void> {
    await this.db.query(`UPDATE merchants SET ${supportLimitColumn(mode)} = $2 WHERE id = $1`, [merchantId, cents === null ? null : String(cents)]);
  }

  async list(): Promise<Merchant[]> {
    return (await this.db.query('SELECT * FROM merchants ORDER BY created_ms')).map(merchantOf);
  }

  async endpoint(account: Pick<Account, 'merchant' | 'mode'>): Promise<WebhookEndpoint> {
    const [row] = await this.db.query('SELECT * FROM webhook_endpoints WHERE merchant_id = $1 AND mode = $2', [account.merchant.id, account.mode]);
    if (!row) throw new Error(`merchant ${account.merchant.id} has no webhook row`);
    return {
      url: (row.url as string | null) ?? null,
      secret: row.secret as string,
      previousSecret: (row.previous_secret as string | null) ?? null,
      previousUntilMs: row.previous_until_ms === null ? null : Number(row.previous_until_ms),
    };
  }

  /** Sets where events go; events parked for want of a URL are sent now. */
  async setWebhookUrl(account: Pick<Account, 'merchant' | 'mode'>, url: string, nowMs: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query('UPDATE webhook_endpoints SET url = $3 WHERE merchant_id = $1 AND mode = $2', [account.merchant.id, account.mode, url]);
      await sendParked(tx, account.merchant.id, account.mode, nowMs);
    });
  }

  /** A new signing secret; the old one still signs alongside it for `overlapMs`. */
  async rotateWebhookSecret(account: Pick<Account, 'merchant' | 'mode'>, nowMs: number, overlapMs: number): Promise<WebhookEndpoint> {
    const secret = newWebhookSecret();
    await this.db.query(`UPDATE webhook_endpoints SET previous_secret = secret, previous_until_ms = $3, secret = $4 WHERE merchant_id = $1 AND mode = $2`, [
      account.merchant.id,
      account.mode,
      nowMs + overlapMs,
      secret,
    ]);
    return this.endpoint(account);
  }
}

/** The column of a mode's support refund limit (migrations 0032 and 0043): one of two names, never the caller's text. */
const supportLimitColumn = (mode: string) => (mode === 'live' ? 'support_refund_limit_live_cents' : 'support_refund_limit_cents');

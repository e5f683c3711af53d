// In-process copies of what every initialize and verify looks up and what seldom changes: the
// account a key opens, a merchant's settlement choice, its payout address per chain, the
// operator's fee terms. Any change of a merchant's keys, profile, settlement, payout addresses
// or fee drops that merchant's copies:
// here at once (the store that made it calls forget once it committed), and on every other
// instance through the NOTIFY on 'changes' its transaction sends (merchantKey), which
// PaymentChanges hands to onChange. A copy is kept MAX_AGE_MS at most, in case a notification
// was lost with a listening connection. A payout address is kept only until the chain's next
// change still waiting takes effect (a live key's new address waits the operator's delay, and
// no one writes anything at the moment it starts to count): the read after that applies it.
import type { Settlement } from '../../contract/balances.ts';
import type { Account } from '../domain/account.ts';
import type { FeeTerms } from '../domain/fees.ts';
import { hashKey, keyAccount } from '../merchants/keys-rules.ts';
import { MERCHANT_KEY_PREFIX, merchantKey } from '../realtime/keys.ts';
import type { Sql } from './db.ts';

/** How long a copy is kept when no change is heard of. */
export const MAX_AGE_MS = 30_000;
/** The most copies kept: past it, all are dropped (a merchant's handful each; unknown keys are never kept). */
const MAX_ENTRIES = 10_000;

/** Tells every instance (this one included, through its LISTEN) that a merchant's cached facts changed; in the change's transaction. */
export const notifyAccountChange = (tx: Sql, merchantId: string) => tx.query(`SELECT pg_notify('changes', $1)`, [merchantKey(merchantId)]);

export interface AccountSources {
  /** The key's account and when it stops working (null: not rolled), whatever the time now. */
  keyOwner(key: string, kind: 'public' | 'secret'): Promise<{ account: Account; revokedAfterMs: number | null } | undefined>;
  settlement(merchantId: string, mode: string): Promise<Settlement>;
  /** The address, and when the chain's first change still waiting takes effect (null: none waits). */
  payoutAddress(merchantId: string, mode: string, chainId: number): Promise<{ address: string | undefined; untilMs: number | null }>;
  /** The operator's fee terms for the merchant's new payments in `mode` (its own or the default). */
  feeTerms(merchantId: string, mode: string): Promise<FeeTerms>;
}

interface Entry {
  merchantId: string;
  value: unknown;
  keptMs: number;
  /** On the service's clock: from then on the copy is not used (a payout address's waiting change). */
  untilMs: number | null;
}

export class AccountCache {
  private readonly entries = new Map<string, Entry>();
  /** Reads under way: requests that miss at once (16 clients when a copy lapses) share one, begun since the last change. */
  private readonly reading = new Map<string, { generation: number; value: Promise<unknown> }>();
  /** Bumped by every forget: a lookup that began before a change does not keep what it read. */
  private generation = 0;

  constructor(
    private readonly sources: AccountSources,
    /** The service's clock, which decides when a key rolled with a delay stops working. */
    private readonly now: () => number = Date.now,
  ) {}

  /** The account a key opens, or undefined for a key nobody holds (or one rolled whose delay has run out). */
  async authenticate(key: string, kind: 'public' | 'secret'): Promise<Account | undefined> {
    const owner = await this.cached(
      `key/${kind}/${hashKey(key)}`,
      () => this.sources.keyOwner(key, kind),
      (found) => found?.account.merchant.id,
    );
    return keyAccount(owner, this.now());
  }

  settlement(merchantId: string, mode: string): Promise<Settlement> {
    return this.cached(
      `settlement/${merchantId}/${mode}`,
      () => this.sources.settlement(merchantId, mode),
      () => merchantId,
    );
  }

  async payoutAddress(merchantId: string, mode: string, chainId: number): Promise<string | undefined> {
    const found = await this.cached(
      `payout/${merchantId}/${mode}/${chainId}`,
      () => this.sources.payoutAddress(merchantId, mode, chainId),
      () => merchantId,
      (value) => value.untilMs,
    );
    return found.address;
  }

  feeTerms(merchantId: string, mode: string): Promise<FeeTerms> {
    return this.cached(
      `fees/${merchantId}/${mode}`,
      () => this.sources.feeTerms(merchantId, mode),
      () => merchantId,
    );
  }

  /** Drops a merchant's copies (its keys, settlement, payout addresses). */
  forget(merchantId: string): void {
    this.generation++;
    for (const [name, entry] of this.entries) if (entry.merchantId === merchantId) this.entries.delete(name);
  }

  /** A key heard on the 'changes' channel: a merchant's change drops its copies; other keys are not ours. */
  onChange(key: string): void {
    if (key.startsWith(MERCHANT_KEY_PREFIX)) this.forget(key.slice(MERCHANT_KEY_PREFIX.length));
  }

  private async cached<T>(
    name: string,
    read: () => Promise<T>,
    owner: (value: T) => string | undefined,
    until: (value: T) => number | null = () => null,
  ): Promise<T> {
    const entry = this.entries.get(name);
    if (entry && performance.now() - entry.keptMs < MAX_AGE_MS && (entry.untilMs === null || this.now() < entry.untilMs)) return entry.value as T;
    const under = this.reading.get(name);
    if (under && under.generation === this.generation) return under.value as Promise<T>;
    const generation = this.generation;
    const reading = read().then((value) => {
      const merchantId = owner(value);
      if (merchantId !== undefined && generation === this.generation) {
        if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
        this.entries.set(name, { merchantId, value, keptMs: performance.now(), untilMs: until(value) });
      }
      return value;
    });
    this.reading.set(name, { generation, value: reading });
    const done = () => {
      if (this.reading.get(name)?.value === reading) this.reading.delete(name);
    };
    reading.then(done, done);
    return reading;
  }
}

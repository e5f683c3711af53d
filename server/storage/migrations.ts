// The schema, as numbered migrations applied in order, once each, under an advisory lock so
// that two instances starting together on one PostgreSQL do not race. SQL that PostgreSQL 15
// (Debian's) and PGlite (18) both accept. Times are epoch milliseconds (the service's clock,
// which tests may move); money is integer base units in numeric(78,0), never a float.
import type { Database } from './db.ts';

const MIGRATIONS: string[] = [
  `
  CREATE TABLE merchants (
    id uuid PRIMARY KEY,
    business_name text NOT NULL,
    business_email text NOT NULL,
    business_logo text NOT NULL DEFAULT '',
    created_ms bigint NOT NULL
  );
  -- Secret keys are stored as SHA-256 hashes only, shown once at creation. A public key is
  -- public by design (it is in every checkout page), so its text is kept for hosted pages.
  CREATE TABLE api_keys (
    hash text PRIMARY KEY,
    public_text text,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL CHECK (mode IN ('test', 'live')),
    kind text NOT NULL CHECK (kind IN ('public', 'secret')),
    hint text NOT NULL,
    created_ms bigint NOT NULL
  );
  -- One webhook endpoint per account (merchant and mode), with its signing secret.
  CREATE TABLE webhook_endpoints (
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    url text,
    secret text NOT NULL,
    previous_secret text,
    previous_until_ms bigint,
    PRIMARY KEY (merchant_id, mode)
  );
  CREATE TABLE payments (
    id bigserial PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    reference text NOT NULL,
    created_by text NOT NULL CHECK (created_by IN ('public', 'secret', 'link')),
    payment_link_id uuid,
    coin text NOT NULL,
    chain_id integer NOT NULL,
    token text NOT NULL,
    decimals integer NOT NULL,
    currency text NOT NULL,
    fiat_minor bigint NOT NULL,
    due numeric(78, 0) NOT NULL,
    fee numeric(78, 0) NOT NULL,
    paid numeric(78, 0) NOT NULL DEFAULT 0,
    fiat_rate text NOT NULL,
    crypto_rate text NOT NULL,
    address text NOT NULL,
    accept_partial boolean NOT NULL,
    customer_name text NOT NULL,
    customer_email text NOT NULL,
    metadata jsonb,
    last_hash text,
    expires_ms bigint NOT NULL,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL,
    UNIQUE (merchant_id, mode, reference)
  );
  -- Money received, each transfer once: (chain, transaction hash, log index) is unique.
  CREATE TABLE transfers (
    id bigserial PRIMARY KEY,
    payment_id bigint NOT NULL REFERENCES payments(id),
    chain_id integer NOT NULL,
    tx_hash text NOT NULL,
    log_index integer NOT NULL,
    amount numeric(78, 0) NOT NULL,
    created_ms bigint NOT NULL,
    UNIQUE (chain_id, tx_hash, log_index)
  );
  -- The outbox: an event is written in the transaction of the change it reports.
  CREATE TABLE events (
    seq bigserial PRIMARY KEY,
    id text NOT NULL UNIQUE,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    type text NOT NULL,
    body text NOT NULL,
    state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'no_endpoint')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_ms bigint,
    lease_until_ms bigint,
    -- Who holds the lease: only that claimer's result is recorded.
    lease_token text,
    -- Retries are tried for a window from here: the event's creation, or its last resend.
    retry_from_ms bigint NOT NULL,
    created_ms bigint NOT NULL
  );
  CREATE INDEX events_due ON events (next_attempt_ms) WHERE state = 'pending';
  CREATE INDEX events_feed ON events (merchant_id, mode, seq);
  CREATE TABLE event_attempts (
    id bigserial PRIMARY KEY,
    event_id text NOT NULL REFERENCES events(id),
    attempt integer NOT NULL,
    url text NOT NULL,
    status integer NOT NULL,
    error text,
    duration_ms integer NOT NULL,
    at_ms bigint NOT NULL,
    instance text NOT NULL
  );
  CREATE INDEX event_attempts_event ON event_attempts (event_id, attempt);
  CREATE TABLE prices (
    id uuid PRIMARY KEY,
    currency text NOT NULL,
    amount text NOT NULL,
    product jsonb NOT NULL
  );
  CREATE TABLE links (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    type text NOT NULL CHECK (type IN ('standard', 'donation')),
    slug text NOT NULL UNIQUE,
    is_active boolean NOT NULL,
    doc jsonb NOT NULL,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL
  );
  CREATE INDEX links_owner ON links (merchant_id, mode, created_ms);
  CREATE SEQUENCE cart_line_ids;
  CREATE TABLE files (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    content_type text NOT NULL,
    data bytea NOT NULL,
    created_ms bigint NOT NULL
  );
  CREATE TABLE bank_accounts (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    currency text NOT NULL,
    fields jsonb NOT NULL,
    is_default boolean NOT NULL,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL
  );
  CREATE TABLE payouts (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    bank_account_id uuid NOT NULL,
    coin text NOT NULL,
    units numeric(78, 0) NOT NULL,
    currency text NOT NULL,
    fiat_minor bigint NOT NULL,
    reference text NOT NULL,
    metadata jsonb,
    status text NOT NULL CHECK (status IN ('pending', 'processing', 'paid', 'failed')),
    failure text,
    provider_ref text,
    next_check_ms bigint,
    lease_until_ms bigint,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL,
    UNIQUE (merchant_id, mode, reference)
  );
  `,
  `
  -- An accepted partial payment, finished by the customer or by its quote running out.
  ALTER TABLE payments ADD COLUMN settled_ms bigint;
  CREATE INDEX payments_to_settle ON payments (expires_ms) WHERE settled_ms IS NULL AND accept_partial AND paid > 0;
  `,
  `
  -- The chain watcher. One cursor per chain: the last block scanned and its hash, and a lease
  -- so one instance at a time watches a chain (a lease, not a session lock: PGlite has one
  -- connection, and a watcher must not hold a transaction open across RPC calls).
  CREATE TABLE chain_cursors (
    chain_id integer PRIMARY KEY,
    block_number bigint NOT NULL,
    block_hash text,
    holder text,
    lease_until_ms bigint NOT NULL DEFAULT 0,
    updated_ms bigint NOT NULL
  );
  -- Hashes of recent blocks the watcher relied on, to notice when the chain reorganised.
  CREATE TABLE chain_blocks (
    chain_id integer NOT NULL,
    number bigint NOT NULL,
    hash text NOT NULL,
    PRIMARY KEY (chain_id, number)
  );
  -- Every Transfer to a deposit address, from the chain's own logs, each once.
  -- seen: in a block, not yet confirmed; credited: counted on its payment; orphaned: its block
  -- left the chain; late: arrived when its payment took no more (recorded, told, not counted);
  -- unexpected: a token the payment did not ask for.
  CREATE TABLE chain_transfers (
    chain_id integer NOT NULL,
    tx_hash text NOT NULL,
    log_index integer NOT NULL,
    block_number bigint NOT NULL,
    block_hash text NOT NULL,
    token text NOT NULL,
    sender text NOT NULL,
    recipient text NOT NULL,
    amount numeric(78, 0) NOT NULL,
    payment_id bigint NOT NULL REFERENCES payments(id),
    state text NOT NULL CHECK (state IN ('seen', 'credited', 'orphaned', 'late', 'unexpected')),
    seen_ms bigint NOT NULL,
    PRIMARY KEY (chain_id, tx_hash, log_index)
  );
  CREATE INDEX chain_transfers_open ON chain_transfers (chain_id, block_number) WHERE state = 'seen';
  CREATE INDEX payments_address ON payments (lower(address));
  -- Where each merchant's deposits are swept to, per chain id: {"31337": "0x…"}.
  ALTER TABLE merchants ADD COLUMN payout_addresses jsonb NOT NULL DEFAULT '{}';
  `,
  `
  -- Sweeping. Each payment keeps the payout address its deposit address is bound to (the
  -- merchant may name another later; this one's tokens can only ever go there). Each transfer
  -- notes the sweep that moved it on, and a claim so that one instance sweeps it at a time.
  ALTER TABLE payments ADD COLUMN payout text;
  ALTER TABLE chain_transfers ADD COLUMN swept_hash text;
  ALTER TABLE chain_transfers ADD COLUMN sweep_claim_ms bigint NOT NULL DEFAULT 0;
  CREATE INDEX chain_transfers_unswept ON chain_transfers (chain_id, block_number) WHERE swept_hash IS NULL AND state IN ('credited', 'late', 'unexpected');
  `,
  `
  -- Payout addresses belong to a mode as well as a chain: a test key must never name where
  -- live money goes. Addresses stored before were per chain only; they are kept for test keys
  -- alone, and live ones must be registered again with a live key (safer than guessing).
  CREATE TABLE payout_addresses (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    chain_id integer NOT NULL,
    address text NOT NULL,
    PRIMARY KEY (merchant_id, mode, chain_id)
  );
  INSERT INTO payout_addresses (merchant_id, mode, chain_id, address)
    SELECT m.id, 'test', e.key::integer, e.value FROM merchants m, jsonb_each_text(m.payout_addresses) e;
  ALTER TABLE merchants DROP COLUMN payout_addresses;
  `,
  `
  -- Dust: a transfer below its token's minimum is recorded, and never counted, told or swept on its own.
  ALTER TABLE chain_transfers DROP CONSTRAINT chain_transfers_state_check;
  ALTER TABLE chain_transfers ADD CONSTRAINT chain_transfers_state_check CHECK (state IN ('seen', 'credited', 'orphaned', 'late', 'unexpected', 'dust'));
  `,
  `
  -- One sweeper per chain at a time: instances sharing a gas wallet would race for its nonce.
  CREATE TABLE chain_sweepers (
    chain_id integer PRIMARY KEY,
    holder text NOT NULL,
    lease_until_ms bigint NOT NULL
  );
  `,
  `
  -- The rates each payment was quoted at (fiat_rate is their product): units of the currency
  -- a dollar buys and dollars a coin is worth, as decimal text, where they came from, whether
  -- the operator fixed them, and when they were fetched. Null for payments made before.
  -- (IF NOT EXISTS: safe to run again, whatever its place in this list.)
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS rates jsonb;
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS rate_source text;
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS rate_fixed boolean;
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS rates_ms bigint;
  `,
  `
  -- When money that cannot count (late, another token) was told to the merchant: once, after its
  -- confirmations, and not again when a reorganisation brings the same transfer back.
  ALTER TABLE chain_transfers ADD COLUMN told_ms bigint;
  UPDATE chain_transfers SET told_ms = seen_ms WHERE state IN ('late', 'unexpected');
  `,
  `
  -- Reconciliation's last look at each deposit and token: a line whose ledger has not changed
  -- since it agreed with the chain is looked at again only after a day, and a difference is
  -- told once, whichever instance finds it.
  CREATE TABLE deposit_checks (
    chain_id integer NOT NULL,
    address text NOT NULL,
    token text NOT NULL,
    held numeric(78, 0) NOT NULL,
    on_chain numeric(78, 0) NOT NULL,
    checked_ms bigint NOT NULL,
    PRIMARY KEY (chain_id, address, token)
  );
  `,
  `
  -- Balances (issue 24). Each merchant and mode settles to its own wallet (the default) or to
  -- a balance the operator's treasury holds; a payment keeps the choice it was made under.
  -- The journal: entries of postings that sum to zero per coin, each entry once by (kind, ref);
  -- a balance is a sum of postings, never a stored number. (IF NOT EXISTS: safe to run again,
  -- whatever its place in this list.)
  CREATE TABLE IF NOT EXISTS settlements (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    settlement text NOT NULL CHECK (settlement IN ('wallet', 'balance')),
    updated_ms bigint NOT NULL,
    PRIMARY KEY (merchant_id, mode)
  );
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS settlement text NOT NULL DEFAULT 'wallet';
  CREATE TABLE IF NOT EXISTS journal_entries (
    id bigserial PRIMARY KEY,
    kind text NOT NULL,
    ref text NOT NULL,
    merchant_id uuid,
    mode text,
    memo text NOT NULL DEFAULT '',
    created_ms bigint NOT NULL,
    UNIQUE (kind, ref)
  );
  CREATE TABLE IF NOT EXISTS postings (
    id bigserial PRIMARY KEY,
    entry_id bigint NOT NULL REFERENCES journal_entries (id),
    account text NOT NULL,
    chain_id integer NOT NULL,
    token text NOT NULL,
    amount numeric(78, 0) NOT NULL CHECK (amount <> 0)
  );
  CREATE INDEX IF NOT EXISTS postings_account ON postings (account, chain_id, token);
  CREATE TABLE IF NOT EXISTS swaps (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    chain_id integer NOT NULL,
    from_symbol text NOT NULL,
    to_symbol text NOT NULL,
    from_token text NOT NULL,
    to_token text NOT NULL,
    from_decimals integer NOT NULL,
    to_decimals integer NOT NULL,
    amount_in numeric(78, 0) NOT NULL,
    pool_out numeric(78, 0) NOT NULL,
    fee numeric(78, 0) NOT NULL,
    minimum_out numeric(78, 0) NOT NULL,
    amount_out numeric(78, 0),
    state text NOT NULL CHECK (state IN ('quoted', 'pending', 'completed', 'failed')),
    expires_ms bigint NOT NULL,
    tx_hash text,
    raw_tx text,
    failure text,
    lease_until_ms bigint NOT NULL DEFAULT 0,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL
  );
  CREATE TABLE IF NOT EXISTS withdrawals (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    chain_id integer NOT NULL,
    symbol text NOT NULL,
    token text NOT NULL,
    decimals integer NOT NULL,
    address text NOT NULL,
    amount numeric(78, 0) NOT NULL,
    state text NOT NULL CHECK (state IN ('pending', 'completed', 'failed')),
    tx_hash text,
    raw_tx text,
    failure text,
    lease_until_ms bigint NOT NULL DEFAULT 0,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL
  );
  -- A payout draws on one coin of one network; null for payouts made before balances.
  ALTER TABLE payouts ADD COLUMN IF NOT EXISTS chain_id integer;
  ALTER TABLE payouts ADD COLUMN IF NOT EXISTS token text;
  ALTER TABLE payouts ADD COLUMN IF NOT EXISTS token_units numeric(78, 0);
  -- One instance at a time sends from a treasury (its nonce is one sequence).
  CREATE TABLE IF NOT EXISTS treasury_leases (
    chain_id integer PRIMARY KEY,
    holder text NOT NULL,
    lease_until_ms bigint NOT NULL
  );
  `,
  `
  -- The merchant's dashboard. Its owner signs in with the e-mail and a password set through a
  -- one-time link (only the link's SHA-256 is kept; it is used once and expires). Passwords
  -- are kept as scrypt hashes. Sessions are kept as hashes of their cookie; signing out
  -- everywhere deletes a merchant's rows. Wrong passwords are counted per e-mail. (IF NOT
  -- EXISTS: safe to run again, whatever its place in this list.)
  CREATE TABLE IF NOT EXISTS dashboard_logins (
    merchant_id uuid PRIMARY KEY REFERENCES merchants (id),
    email text NOT NULL,
    password_hash text,
    updated_ms bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS dashboard_logins_email ON dashboard_logins (lower(email));
  CREATE TABLE IF NOT EXISTS dashboard_links (
    hash text PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    expires_ms bigint NOT NULL,
    used_ms bigint
  );
  CREATE TABLE IF NOT EXISTS dashboard_sessions (
    hash text PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    csrf text NOT NULL,
    created_ms bigint NOT NULL,
    expires_ms bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS dashboard_sessions_merchant ON dashboard_sessions (merchant_id);
  CREATE TABLE IF NOT EXISTS dashboard_failures (
    email text PRIMARY KEY,
    failures integer NOT NULL,
    locked_until_ms bigint NOT NULL,
    last_ms bigint NOT NULL
  );
  -- The payments list pages by (created_ms, id), newest first, and finds a customer's e-mail;
  -- a payment's timeline finds its events by the reference in their body.
  CREATE INDEX IF NOT EXISTS payments_list ON payments (merchant_id, mode, created_ms DESC, id DESC);
  CREATE INDEX IF NOT EXISTS payments_email ON payments (merchant_id, mode, lower(customer_email));
  CREATE INDEX IF NOT EXISTS transfers_payment ON transfers (payment_id);
  CREATE INDEX IF NOT EXISTS transfers_hash ON transfers (lower(tx_hash));
  CREATE INDEX IF NOT EXISTS chain_transfers_payment ON chain_transfers (payment_id);
  CREATE INDEX IF NOT EXISTS events_reference ON events (merchant_id, mode, ((body::jsonb -> 'data' ->> 'reference')));
  `,
  `
  -- Products and their prices, the merchant's own (issue 23). The seeded catalogue's prices
  -- have no merchant and stay offered to every cart; a merchant's prices only to its own, and
  -- not once archived (or their product is). seq orders a product's prices as they were added.
  CREATE TABLE IF NOT EXISTS products (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    name text NOT NULL,
    description text NOT NULL DEFAULT '',
    archived boolean NOT NULL DEFAULT false,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS products_owner ON products (merchant_id, mode, created_ms DESC, id DESC);
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS merchant_id uuid REFERENCES merchants (id);
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS mode text;
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS product_id uuid REFERENCES products (id);
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS archived boolean NOT NULL DEFAULT false;
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS created_ms bigint;
  ALTER TABLE prices ADD COLUMN IF NOT EXISTS seq bigserial;
  CREATE INDEX IF NOT EXISTS prices_product ON prices (product_id, seq);
  `,
  `
  -- One table of leases, by name ("sweep/56", "treasury/56"), instead of a table per kind of
  -- lease. A lease lasts seconds: the rows of the tables it replaces need not be carried over.
  CREATE TABLE IF NOT EXISTS leases (
    name text PRIMARY KEY,
    holder text NOT NULL,
    lease_until_ms bigint NOT NULL
  );
  DROP TABLE IF EXISTS chain_sweepers;
  DROP TABLE IF EXISTS treasury_leases;
  `,
  `
  -- Webhook delivery picks each account's oldest due events (claimDue): one index walk per account.
  CREATE INDEX IF NOT EXISTS events_due_account ON events (merchant_id, mode, next_attempt_ms) WHERE state = 'pending';
  `,
  `
  -- A sweep is recorded with the block it was mined in, and is final only once that block has
  -- the network's confirmations: until then a reorganisation can take it away, and the deposit
  -- is swept again. Sweeps recorded before this were taken as final.
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS swept_block bigint;
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS swept_block_hash text;
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS sweep_final boolean NOT NULL DEFAULT false;
  UPDATE chain_transfers SET sweep_final = true WHERE swept_hash IS NOT NULL;
  CREATE INDEX IF NOT EXISTS chain_transfers_sweep_open ON chain_transfers (chain_id, swept_hash) WHERE swept_hash IS NOT NULL AND NOT sweep_final;
  `,
  `
  -- Issue 24, what was left. What is owed to the payout partner for bank payouts paid, sent
  -- from the treasury to its deposit address: each transfer recorded (amount, then its signed
  -- transaction) before it is sent; at most one under way per coin, whichever instance sends.
  CREATE TABLE IF NOT EXISTS partner_transfers (
    id uuid PRIMARY KEY,
    chain_id integer NOT NULL,
    token text NOT NULL,
    address text NOT NULL,
    amount numeric(78, 0) NOT NULL CHECK (amount > 0),
    state text NOT NULL CHECK (state IN ('pending', 'completed', 'failed')),
    tx_hash text,
    raw_tx text,
    failure text,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL
  );
  CREATE UNIQUE INDEX IF NOT EXISTS partner_transfers_one_pending ON partner_transfers (chain_id, token) WHERE state = 'pending';
  -- A merchant's daily limit on withdrawals to wallets, per mode and coin, set by the operator
  -- (whole tokens as decimal text, as a network file's minimum); the service's default otherwise.
  CREATE TABLE IF NOT EXISTS withdrawal_limits (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    coin text NOT NULL,
    daily text NOT NULL,
    updated_ms bigint NOT NULL,
    PRIMARY KEY (merchant_id, mode, coin)
  );
  CREATE INDEX IF NOT EXISTS withdrawals_recent ON withdrawals (merchant_id, mode, chain_id, token, created_ms);
  `,
  `
  -- Issue 23. A secret key rolled with a delay keeps working until revoked_after_ms, and is
  -- refused from then (null: until it is deleted). Wrong dashboard passwords are counted per
  -- e-mail and client address, so a stranger failing sign-ins locks out only their own
  -- address; the row with client '*' counts every client's failures against the e-mail (a
  -- high ceiling, lifted by the owner's new sign-in link).
  ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS revoked_after_ms bigint;
  CREATE TABLE IF NOT EXISTS sign_in_failures (
    email text NOT NULL,
    client text NOT NULL,
    failures integer NOT NULL,
    locked_until_ms bigint NOT NULL,
    last_ms bigint NOT NULL,
    PRIMARY KEY (email, client)
  );
  DROP TABLE IF EXISTS dashboard_failures;
  `,
  `
  -- The nonce of each treasury transaction recorded (swaps, withdrawals, partner transfers): a
  -- transaction not mined whose nonce went to another of the treasury's own, mined, is the only
  -- proof that it never will be. Rows recorded before this have none (they wait, never fail).
  ALTER TABLE swaps ADD COLUMN IF NOT EXISTS tx_nonce bigint;
  ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS tx_nonce bigint;
  ALTER TABLE partner_transfers ADD COLUMN IF NOT EXISTS tx_nonce bigint;
  CREATE INDEX IF NOT EXISTS swaps_tx_nonce ON swaps (chain_id, tx_nonce) WHERE tx_nonce IS NOT NULL;
  CREATE INDEX IF NOT EXISTS withdrawals_tx_nonce ON withdrawals (chain_id, tx_nonce) WHERE tx_nonce IS NOT NULL;
  CREATE INDEX IF NOT EXISTS partner_transfers_tx_nonce ON partner_transfers (chain_id, tx_nonce) WHERE tx_nonce IS NOT NULL;
  `,
  `
  -- Issue 34: ONE daily withdrawal limit per merchant and mode, in US dollars, across every coin
  -- and chain (it was per coin, summed per chain and token: USDT on two chains was twice it, and
  -- a swap opened the limit of another coin). A merchant's own limits carry over as the lowest
  -- of them (stablecoins at their peg).
  CREATE TABLE IF NOT EXISTS withdrawal_daily_limits (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    daily_usd text NOT NULL,
    updated_ms bigint NOT NULL,
    PRIMARY KEY (merchant_id, mode)
  );
  INSERT INTO withdrawal_daily_limits (merchant_id, mode, daily_usd, updated_ms)
    SELECT merchant_id, mode, min(daily::numeric)::text, max(updated_ms) FROM withdrawal_limits GROUP BY merchant_id, mode
    ON CONFLICT (merchant_id, mode) DO NOTHING;
  DROP TABLE IF EXISTS withdrawal_limits;
  -- What each withdrawal and bank payout was worth in US cents when it left the balance, which
  -- the limit sums; earlier ones at their peg, rounded up.
  ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS usd_cents bigint;
  UPDATE withdrawals SET usd_cents = ceil(amount / power(10::numeric, decimals - 2)) WHERE usd_cents IS NULL;
  ALTER TABLE withdrawals ALTER COLUMN usd_cents SET NOT NULL;
  ALTER TABLE payouts ADD COLUMN IF NOT EXISTS usd_cents bigint NOT NULL DEFAULT 0;
  UPDATE payouts SET usd_cents = ceil(units / 10000) WHERE coin = 'USDT';
  DROP INDEX IF EXISTS withdrawals_recent;
  CREATE INDEX IF NOT EXISTS withdrawals_spent ON withdrawals (merchant_id, mode, created_ms);
  CREATE INDEX IF NOT EXISTS payouts_spent ON payouts (merchant_id, mode, created_ms);
  `,
];

export async function migrate(db: Database): Promise<number> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7240001)');
    await tx.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, applied_ms bigint NOT NULL)');
    const done = new Set((await tx.query<{ version: number }>('SELECT version FROM schema_migrations')).map((r) => Number(r.version)));
    let applied = 0;
    for (const [index, sql] of MIGRATIONS.entries()) {
      const version = index + 1;
      if (done.has(version)) continue;
      for (const statement of sql.split(/;\s*$/m).map((s) => s.trim()).filter(Boolean)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, applied_ms) VALUES ($1, $2)', [version, Date.now()]);
      applied++;
    }
    return applied;
  });
}

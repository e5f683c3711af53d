// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
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
  `;

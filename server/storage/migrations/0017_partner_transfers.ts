// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
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
  `;

// Live keys' new destinations wait (issue 34): a new payout address, a new bank account or new
// bank details, a wallet never withdrawn to. Each is a change, pending until effective_ms (the
// operator's delay after it was asked), then applied, unless the owner cancelled it.
export default `
CREATE TABLE IF NOT EXISTS destination_changes (
  id uuid PRIMARY KEY,
  merchant_id uuid NOT NULL REFERENCES merchants (id),
  mode text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('payout_address', 'bank_account', 'withdrawal_address')),
  chain_id integer,
  address text,
  bank_account_id uuid,
  fields jsonb,
  state text NOT NULL CHECK (state IN ('pending', 'applied', 'cancelled')),
  requested_ms bigint NOT NULL,
  effective_ms bigint NOT NULL,
  decided_ms bigint
);
CREATE INDEX IF NOT EXISTS destination_changes_owner ON destination_changes (merchant_id, mode, kind, state);
ALTER TABLE bank_accounts ADD COLUMN IF NOT EXISTS effective_ms bigint NOT NULL DEFAULT 0;
`;

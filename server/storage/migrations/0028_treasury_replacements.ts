// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 33: a treasury transaction not mined in time is signed again at its nonce with higher
// fees. Each replacement is recorded here before it is sent, so that whichever of them is mined
// (the first or any replacement, after a restart too) is recognised as the row's own, never as
// another transaction that took its nonce. `signed_ms` on each row: when its first transaction
// was signed (how long the head of the treasury's queue has waited, for /readyz and /metrics).
// A swap's approval of the router is recorded on the swap before it is sent (re-sent if it
// times out, its gas journaled once mined), and its nonce counts as under way.
export default `
  CREATE TABLE IF NOT EXISTS treasury_replacements (
    tx_hash text PRIMARY KEY,
    chain_id integer NOT NULL,
    row_table text NOT NULL,
    row_id text NOT NULL,
    nonce bigint NOT NULL,
    raw_tx text NOT NULL,
    signed_ms bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS treasury_replacements_row ON treasury_replacements (row_table, row_id);
  CREATE INDEX IF NOT EXISTS treasury_replacements_nonce ON treasury_replacements (chain_id, nonce);
  ALTER TABLE swaps ADD COLUMN IF NOT EXISTS signed_ms bigint;
  ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS signed_ms bigint;
  ALTER TABLE partner_transfers ADD COLUMN IF NOT EXISTS signed_ms bigint;
  ALTER TABLE swaps ADD COLUMN IF NOT EXISTS approve_tx_hash text;
  ALTER TABLE swaps ADD COLUMN IF NOT EXISTS approve_raw_tx text;
  ALTER TABLE swaps ADD COLUMN IF NOT EXISTS approve_nonce bigint;
  `;

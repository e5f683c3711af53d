// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// A treasury send (a withdrawal, a refund's send) counted at the network's
// confirmations is looked at again until its block is final (at or below the chain's finalized
// block): a reorganisation deeper than the confirmations may still take it away. `mined_block`
// and `mined_block_hash` are the block it was counted in (the same hash there again: still on
// the chain, no receipt asked for), `final_ms` when it was found final (NULL: still looked at).
// Sends decided before this migration are taken as final: their blocks were not kept.
export default `
  ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS mined_block bigint;
  ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS mined_block_hash text;
  ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS final_ms bigint;
  UPDATE withdrawals SET final_ms = updated_ms WHERE state <> 'pending' AND final_ms IS NULL;
  CREATE INDEX IF NOT EXISTS withdrawals_not_final ON withdrawals (chain_id) WHERE state = 'completed' AND final_ms IS NULL;
`;

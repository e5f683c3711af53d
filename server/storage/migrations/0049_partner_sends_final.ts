// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// A transfer to the payout partner counted at the network's confirmations is looked at again
// until its block is final, as withdrawals and refunds' sends are (0047): a reorganisation deeper
// than the confirmations may still take it away, and the treasury then holds what the journal
// says the partner was sent. `mined_block` and `mined_block_hash` are the block it was counted in,
// `final_ms` when it was found final (NULL: still looked at). Transfers decided before this
// migration are taken as final: their blocks were not kept.
export default `
  ALTER TABLE partner_transfers ADD COLUMN IF NOT EXISTS mined_block bigint;
  ALTER TABLE partner_transfers ADD COLUMN IF NOT EXISTS mined_block_hash text;
  ALTER TABLE partner_transfers ADD COLUMN IF NOT EXISTS final_ms bigint;
  UPDATE partner_transfers SET final_ms = updated_ms WHERE state <> 'pending' AND final_ms IS NULL;
  CREATE INDEX IF NOT EXISTS partner_transfers_not_final ON partner_transfers (chain_id) WHERE state = 'completed' AND final_ms IS NULL;
`;

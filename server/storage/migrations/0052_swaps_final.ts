// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// A swap counted at the network's confirmations is looked at again until its block is final, as
// the treasury's sends are (0047, 0049): a reorganisation deeper than the confirmations may still
// take it away, and the treasury then holds the coin it sent, not the one the journal says it got.
// `mined_block` and `mined_block_hash` are the block it was counted in, `final_ms` when it was
// found final (NULL: still looked at). `approve_round`: its router approval left the chain with it
// and is sent again before it; once mined again, its gas is journaled at this round (0: not sent
// again). Swaps decided before this migration are taken as final: their blocks were not kept.
export default `
  ALTER TABLE swaps ADD COLUMN IF NOT EXISTS mined_block bigint;
  ALTER TABLE swaps ADD COLUMN IF NOT EXISTS mined_block_hash text;
  ALTER TABLE swaps ADD COLUMN IF NOT EXISTS final_ms bigint;
  ALTER TABLE swaps ADD COLUMN IF NOT EXISTS approve_round integer NOT NULL DEFAULT 0;
  UPDATE swaps SET final_ms = updated_ms WHERE state NOT IN ('quoted', 'pending') AND final_ms IS NULL;
  CREATE INDEX IF NOT EXISTS swaps_not_final ON swaps (chain_id) WHERE state = 'completed' AND final_ms IS NULL;
`;

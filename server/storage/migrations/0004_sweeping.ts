// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- Sweeping. Each payment keeps the payout address its deposit address is bound to (the
  -- merchant may name another later; this one's tokens can only ever go there). Each transfer
  -- notes the sweep that moved it on, and a claim so that one instance sweeps it at a time.
  ALTER TABLE payments ADD COLUMN payout text;
  ALTER TABLE chain_transfers ADD COLUMN swept_hash text;
  ALTER TABLE chain_transfers ADD COLUMN sweep_claim_ms bigint NOT NULL DEFAULT 0;
  CREATE INDEX chain_transfers_unswept ON chain_transfers (chain_id, block_number) WHERE swept_hash IS NULL AND state IN ('credited', 'late', 'unexpected');
  `;

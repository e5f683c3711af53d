// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- A sweep is recorded with the block it was mined in, and is final only once that block has
  -- the network's confirmations: until then a reorganisation can take it away, and the deposit
  -- is swept again. Sweeps recorded before this were taken as final.
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS swept_block bigint;
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS swept_block_hash text;
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS sweep_final boolean NOT NULL DEFAULT false;
  UPDATE chain_transfers SET sweep_final = true WHERE swept_hash IS NOT NULL;
  CREATE INDEX IF NOT EXISTS chain_transfers_sweep_open ON chain_transfers (chain_id, swept_hash) WHERE swept_hash IS NOT NULL AND NOT sweep_final;
  `;

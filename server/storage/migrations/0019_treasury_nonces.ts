// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- The nonce of each treasury transaction recorded (swaps, withdrawals, partner transfers): a
  -- transaction not mined whose nonce went to another of the treasury's own, mined, is the only
  -- proof that it never will be. Rows recorded before this have none (they wait, never fail).
  ALTER TABLE swaps ADD COLUMN IF NOT EXISTS tx_nonce bigint;
  ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS tx_nonce bigint;
  ALTER TABLE partner_transfers ADD COLUMN IF NOT EXISTS tx_nonce bigint;
  CREATE INDEX IF NOT EXISTS swaps_tx_nonce ON swaps (chain_id, tx_nonce) WHERE tx_nonce IS NOT NULL;
  CREATE INDEX IF NOT EXISTS withdrawals_tx_nonce ON withdrawals (chain_id, tx_nonce) WHERE tx_nonce IS NOT NULL;
  CREATE INDEX IF NOT EXISTS partner_transfers_tx_nonce ON partner_transfers (chain_id, tx_nonce) WHERE tx_nonce IS NOT NULL;
  `;

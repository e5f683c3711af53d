// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- When money that cannot count (late, another token) was told to the merchant: once, after its
  -- confirmations, and not again when a reorganisation brings the same transfer back.
  ALTER TABLE chain_transfers ADD COLUMN told_ms bigint;
  UPDATE chain_transfers SET told_ms = seen_ms WHERE state IN ('late', 'unexpected');
  `;

// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- Dust: a transfer below its token's minimum is recorded, and never counted, told or swept on its own.
  ALTER TABLE chain_transfers DROP CONSTRAINT chain_transfers_state_check;
  ALTER TABLE chain_transfers ADD CONSTRAINT chain_transfers_state_check CHECK (state IN ('seen', 'credited', 'orphaned', 'late', 'unexpected', 'dust'));
  `;

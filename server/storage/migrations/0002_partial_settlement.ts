// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- An accepted partial payment, finished by the customer or by its quote running out.
  ALTER TABLE payments ADD COLUMN settled_ms bigint;
  CREATE INDEX payments_to_settle ON payments (expires_ms) WHERE settled_ms IS NULL AND accept_partial AND paid > 0;
  `;

// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 35, second part: a refund made without an address waits for the customer to claim it
// through a single-use link (only the token's SHA-256 is kept, with its expiry); the merchant
// can cancel a refund before it is sent; what a refund was worth in US cents is kept, so one
// waiting for its address counts toward the daily withdrawal limit before its withdrawal
// exists; a support member's refunds are capped per merchant (NULL: the operator's default).
export default `
  ALTER TABLE refunds DROP CONSTRAINT IF EXISTS refunds_state_check;
  ALTER TABLE refunds ADD CONSTRAINT refunds_state_check CHECK (state IN ('waiting_for_address', 'ready', 'sent', 'confirmed', 'failed', 'canceled'));
  ALTER TABLE refunds ALTER COLUMN address DROP NOT NULL;
  ALTER TABLE refunds ADD COLUMN IF NOT EXISTS claim_hash text;
  ALTER TABLE refunds ADD COLUMN IF NOT EXISTS claim_expires_ms bigint;
  ALTER TABLE refunds ADD COLUMN IF NOT EXISTS usd_cents numeric(78, 0) NOT NULL DEFAULT 0;
  ALTER TABLE refunds ADD COLUMN IF NOT EXISTS actor_role text;
  CREATE UNIQUE INDEX IF NOT EXISTS refunds_claim ON refunds (claim_hash) WHERE claim_hash IS NOT NULL;
  CREATE INDEX IF NOT EXISTS refunds_waiting ON refunds (claim_expires_ms) WHERE state = 'waiting_for_address';
  ALTER TABLE merchants ADD COLUMN IF NOT EXISTS support_refund_limit_cents numeric(78, 0);
`;

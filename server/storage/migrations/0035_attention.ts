// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 35, exceptions resolved in one step: what a merchant decided about money that did not
// count as asked. A payment's own case (its excess, or an expired partial) is resolved on the
// payment ('accepted': kept; 'refunded': sent back, with the refund's id); a transfer that could
// not count (late, another coin, another chain) on its chain_transfers row. A refund of money
// outside the payment's counted amount (a late or unmatched transfer) never counts against what
// the payment itself can give back.
export default `
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS resolution text CHECK (resolution IN ('accepted', 'refunded'));
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS resolved_ms bigint;
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS resolution_refund uuid;
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS resolution text CHECK (resolution IN ('accepted', 'refunded'));
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS resolved_ms bigint;
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS resolution_refund uuid;
  ALTER TABLE refunds ADD COLUMN IF NOT EXISTS outside_payment boolean NOT NULL DEFAULT false;
  CREATE INDEX IF NOT EXISTS chain_transfers_unresolved ON chain_transfers (payment_id) WHERE state IN ('late', 'unexpected') AND resolution IS NULL;
`;

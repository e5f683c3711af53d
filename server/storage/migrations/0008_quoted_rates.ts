// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- The rates each payment was quoted at (fiat_rate is their product): units of the currency
  -- a dollar buys and dollars a coin is worth, as decimal text, where they came from, whether
  -- the operator fixed them, and when they were fetched. Null for payments made before.
  -- (IF NOT EXISTS: safe to run again, whatever its place in this list.)
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS rates jsonb;
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS rate_source text;
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS rate_fixed boolean;
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS rates_ms bigint;
  `;

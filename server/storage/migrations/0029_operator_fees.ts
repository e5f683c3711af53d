// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- Issue 38: the operator's fee per merchant and mode (basis points, who bears it), where the
  -- operator set one of its own (merchant fee); others pay FEE_BPS/FEE_BEARER (none by default).
  CREATE TABLE IF NOT EXISTS merchant_fees (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    bps integer NOT NULL CHECK (bps >= 0 AND bps <= 1000),
    bearer text NOT NULL CHECK (bearer IN ('customer', 'merchant')),
    updated_ms bigint NOT NULL,
    PRIMARY KEY (merchant_id, mode)
  );
  -- The terms each payment was made with (on wallet settlement bound into its deposit address,
  -- with fee_to, where the deposit contract sends the fee). Payments made before carried a 1%
  -- "Service fee" that the sweep sent to the merchant with the rest: no one collected it, so
  -- their operator's fee is none and what the customer was asked (due) is all the price.
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS fee_bps integer NOT NULL DEFAULT 0;
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS fee_bearer text NOT NULL DEFAULT 'customer';
  ALTER TABLE payments ADD COLUMN IF NOT EXISTS fee_to text;
  UPDATE payments SET fee = 0 WHERE fee_bps = 0 AND fee <> 0;
  `;

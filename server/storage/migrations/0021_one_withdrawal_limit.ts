// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- Issue 34: ONE daily withdrawal limit per merchant and mode, in US dollars, across every coin
  -- and chain (it was per coin, summed per chain and token: USDT on two chains was twice it, and
  -- a swap opened the limit of another coin). A merchant's own limits carry over as the lowest
  -- of them (stablecoins at their peg).
  CREATE TABLE IF NOT EXISTS withdrawal_daily_limits (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    daily_usd text NOT NULL,
    updated_ms bigint NOT NULL,
    PRIMARY KEY (merchant_id, mode)
  );
  INSERT INTO withdrawal_daily_limits (merchant_id, mode, daily_usd, updated_ms)
    SELECT merchant_id, mode, min(daily::numeric)::text, max(updated_ms) FROM withdrawal_limits GROUP BY merchant_id, mode
    ON CONFLICT (merchant_id, mode) DO NOTHING;
  DROP TABLE IF EXISTS withdrawal_limits;
  -- What each withdrawal and bank payout was worth in US cents when it left the balance, which
  -- the limit sums; earlier ones at their peg, rounded up.
  ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS usd_cents bigint;
  UPDATE withdrawals SET usd_cents = ceil(amount / power(10::numeric, decimals - 2)) WHERE usd_cents IS NULL;
  ALTER TABLE withdrawals ALTER COLUMN usd_cents SET NOT NULL;
  ALTER TABLE payouts ADD COLUMN IF NOT EXISTS usd_cents bigint NOT NULL DEFAULT 0;
  UPDATE payouts SET usd_cents = ceil(units / 10000) WHERE coin = 'USDT';
  DROP INDEX IF EXISTS withdrawals_recent;
  CREATE INDEX IF NOT EXISTS withdrawals_spent ON withdrawals (merchant_id, mode, created_ms);
  CREATE INDEX IF NOT EXISTS payouts_spent ON payouts (merchant_id, mode, created_ms);
  `;

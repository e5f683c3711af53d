// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 35, money in another coin or on another chain credited at the rate of its arrival: the
// rates cache keeps each coin rate it fetches (US dollars one coin is worth, units at
// domain/rates.ts's RATE_DECIMALS, with its provider, time and fixed flag), pruned after
// RATE_HISTORY_DAYS. Several instances on one database each write their own rows (the key
// takes the same row once). A transfer credited so keeps what it was credited and at what.
export default `
  CREATE TABLE IF NOT EXISTS rate_history (
    symbol text NOT NULL,
    usd_units bigint NOT NULL CHECK (usd_units > 0),
    fetched_ms bigint NOT NULL,
    provider text NOT NULL,
    fixed boolean NOT NULL,
    PRIMARY KEY (symbol, fetched_ms, provider)
  );
  CREATE INDEX IF NOT EXISTS rate_history_fetched ON rate_history (fetched_ms);
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS credited numeric(78, 0);
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS credit_usd_from bigint;
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS credit_usd_to bigint;
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS credit_rate_ms bigint;
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS credit_source text;
`;

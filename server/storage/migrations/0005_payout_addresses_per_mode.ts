// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- Payout addresses belong to a mode as well as a chain: a test key must never name where
  -- live money goes. Addresses stored before were per chain only; they are kept for test keys
  -- alone, and live ones must be registered again with a live key (safer than guessing).
  CREATE TABLE payout_addresses (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    chain_id integer NOT NULL,
    address text NOT NULL,
    PRIMARY KEY (merchant_id, mode, chain_id)
  );
  INSERT INTO payout_addresses (merchant_id, mode, chain_id, address)
    SELECT m.id, 'test', e.key::integer, e.value FROM merchants m, jsonb_each_text(m.payout_addresses) e;
  ALTER TABLE merchants DROP COLUMN payout_addresses;
  `;

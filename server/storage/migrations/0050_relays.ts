// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Paying with one signature: each relay the gas wallet sends is recorded before it is broadcast
// (its first transaction, and each re-priced one, by hash), so that one mined after the service
// stopped, or after the customer's request gave up waiting, is still found and its gas journaled
// once (chain/relay-job.ts). `reserved_wei`: the most it may cost (gas limit × max fee), counted
// against the daily caps while it is `sent`; `mined` with the transaction that was, `dropped`
// when its nonce went to another transaction (no gas spent). By payment and by payer: a payment
// is relayed once, a payer a few times a day.
export default `
  CREATE TABLE IF NOT EXISTS relays (
    id text PRIMARY KEY,
    chain_id integer NOT NULL,
    nonce bigint NOT NULL,
    merchant_id text NOT NULL,
    mode text NOT NULL,
    reference text NOT NULL,
    payer text NOT NULL,
    tx_hashes text[] NOT NULL,
    reserved_wei numeric(78, 0) NOT NULL,
    state text NOT NULL CHECK (state IN ('sent', 'mined', 'dropped')),
    tx_hash text,
    created_ms bigint NOT NULL,
    done_ms bigint
  );
  CREATE INDEX IF NOT EXISTS relays_unfinished ON relays (chain_id) WHERE state = 'sent';
  CREATE INDEX IF NOT EXISTS relays_payment ON relays (merchant_id, mode, reference);
  CREATE INDEX IF NOT EXISTS relays_payer ON relays (chain_id, payer, created_ms);
`;

// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 35: refunds of a payment. Each is one row; on `balance` settlement the treasury sends it
// as a withdrawals row of the same id (the treasury's one send path, journaled and counted with
// the daily limit), and the refund's state follows that row's. The sum of a payment's refunds
// not failed never passes what arrived for it: checked under the merchant's balance lock.
export default `
  CREATE TABLE IF NOT EXISTS refunds (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    payment_id bigint NOT NULL REFERENCES payments (id),
    reference text NOT NULL,
    coin text NOT NULL,
    chain_id integer NOT NULL,
    token text NOT NULL,
    decimals integer NOT NULL,
    address text NOT NULL,
    amount numeric(78, 0) NOT NULL CHECK (amount > 0),
    reason text NOT NULL,
    settlement text NOT NULL CHECK (settlement IN ('balance', 'wallet')),
    state text NOT NULL CHECK (state IN ('ready', 'sent', 'confirmed', 'failed')),
    tx_hash text,
    failure text,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS refunds_list ON refunds (merchant_id, mode, created_ms DESC, id DESC);
  CREATE INDEX IF NOT EXISTS refunds_payment ON refunds (payment_id);
  CREATE INDEX IF NOT EXISTS refunds_open ON refunds (state) WHERE state IN ('ready', 'sent');
`;

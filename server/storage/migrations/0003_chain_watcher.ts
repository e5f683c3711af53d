// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- The chain watcher. One cursor per chain: the last block scanned and its hash, and a lease
  -- so one instance at a time watches a chain (a lease, not a session lock: PGlite has one
  -- connection, and a watcher must not hold a transaction open across RPC calls).
  CREATE TABLE chain_cursors (
    chain_id integer PRIMARY KEY,
    block_number bigint NOT NULL,
    block_hash text,
    holder text,
    lease_until_ms bigint NOT NULL DEFAULT 0,
    updated_ms bigint NOT NULL
  );
  -- Hashes of recent blocks the watcher relied on, to notice when the chain reorganised.
  CREATE TABLE chain_blocks (
    chain_id integer NOT NULL,
    number bigint NOT NULL,
    hash text NOT NULL,
    PRIMARY KEY (chain_id, number)
  );
  -- Every Transfer to a deposit address, from the chain's own logs, each once.
  -- seen: in a block, not yet confirmed; credited: counted on its payment; orphaned: its block
  -- left the chain; late: arrived when its payment took no more (recorded, told, not counted);
  -- unexpected: a token the payment did not ask for.
  CREATE TABLE chain_transfers (
    chain_id integer NOT NULL,
    tx_hash text NOT NULL,
    log_index integer NOT NULL,
    block_number bigint NOT NULL,
    block_hash text NOT NULL,
    token text NOT NULL,
    sender text NOT NULL,
    recipient text NOT NULL,
    amount numeric(78, 0) NOT NULL,
    payment_id bigint NOT NULL REFERENCES payments(id),
    state text NOT NULL CHECK (state IN ('seen', 'credited', 'orphaned', 'late', 'unexpected')),
    seen_ms bigint NOT NULL,
    PRIMARY KEY (chain_id, tx_hash, log_index)
  );
  CREATE INDEX chain_transfers_open ON chain_transfers (chain_id, block_number) WHERE state = 'seen';
  CREATE INDEX payments_address ON payments (lower(address));
  -- Where each merchant's deposits are swept to, per chain id: {"31337": "0x…"}.
  ALTER TABLE merchants ADD COLUMN payout_addresses jsonb NOT NULL DEFAULT '{}';
  `;

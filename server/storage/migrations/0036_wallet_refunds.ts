// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 35, wallet settlement: the service holds none of the money, so the merchant sends the
// refund from its own wallet. Per refund, where the service looks for that transfer on chain
// (the next block to scan from) and the transfer that paid it: one transaction pays one refund
// only (unique per chain), whether the watcher found it or the merchant named it.
export default `
  CREATE TABLE IF NOT EXISTS refund_transfers (
    refund_id uuid PRIMARY KEY REFERENCES refunds (id),
    chain_id integer NOT NULL,
    scan_from bigint NOT NULL,
    tx_hash text,
    block_number bigint,
    found_by text CHECK (found_by IN ('watcher', 'merchant')),
    updated_ms bigint NOT NULL
  );
  CREATE UNIQUE INDEX IF NOT EXISTS refund_transfers_tx ON refund_transfers (chain_id, tx_hash) WHERE tx_hash IS NOT NULL;
  CREATE INDEX IF NOT EXISTS refunds_wallet_open ON refunds (state) WHERE settlement = 'wallet' AND state IN ('ready', 'sent');
`;

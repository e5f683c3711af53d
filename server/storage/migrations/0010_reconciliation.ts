// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- Reconciliation's last look at each deposit and token: a line whose ledger has not changed
  -- since it agreed with the chain is looked at again only after a day, and a difference is
  -- told once, whichever instance finds it.
  CREATE TABLE deposit_checks (
    chain_id integer NOT NULL,
    address text NOT NULL,
    token text NOT NULL,
    held numeric(78, 0) NOT NULL,
    on_chain numeric(78, 0) NOT NULL,
    checked_ms bigint NOT NULL,
    PRIMARY KEY (chain_id, address, token)
  );
  `;

// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- One sweeper per chain at a time: instances sharing a gas wallet would race for its nonce.
  CREATE TABLE chain_sweepers (
    chain_id integer PRIMARY KEY,
    holder text NOT NULL,
    lease_until_ms bigint NOT NULL
  );
  `;

// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- One table of leases, by name ("sweep/56", "treasury/56"), instead of a table per kind of
  -- lease. A lease lasts seconds: the rows of the tables it replaces need not be carried over.
  CREATE TABLE IF NOT EXISTS leases (
    name text PRIMARY KEY,
    holder text NOT NULL,
    lease_until_ms bigint NOT NULL
  );
  DROP TABLE IF EXISTS chain_sweepers;
  DROP TABLE IF EXISTS treasury_leases;
  `;

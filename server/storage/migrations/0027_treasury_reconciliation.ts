// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 33: the treasury reconciled against the journal in production. The last finding per
// chain and coin (what the treasury holds on chain, what the journal says it owes, and what is
// in flight either way), the holds on a chain's money movements (one active per chain, kept
// with who resolved it and why once resolved: never deleted), and the operator's events.
export default `
  CREATE TABLE IF NOT EXISTS treasury_findings (
    chain_id integer NOT NULL,
    token text NOT NULL,
    symbol text NOT NULL,
    held numeric(78, 0) NOT NULL,
    owed numeric(78, 0) NOT NULL,
    incoming numeric(78, 0) NOT NULL,
    outgoing numeric(78, 0) NOT NULL,
    short numeric(78, 0) NOT NULL,
    at_block bigint NOT NULL,
    checked_ms bigint NOT NULL,
    PRIMARY KEY (chain_id, token)
  );
  CREATE TABLE IF NOT EXISTS treasury_holds (
    id bigserial PRIMARY KEY,
    chain_id integer NOT NULL,
    reason text NOT NULL,
    detail text NOT NULL,
    since_ms bigint NOT NULL,
    resolved_ms bigint,
    resolved_by text,
    resolved_why text
  );
  CREATE UNIQUE INDEX IF NOT EXISTS treasury_holds_active ON treasury_holds (chain_id) WHERE resolved_ms IS NULL;
  CREATE TABLE IF NOT EXISTS operator_events (
    id bigserial PRIMARY KEY,
    kind text NOT NULL,
    chain_id integer,
    detail text NOT NULL,
    created_ms bigint NOT NULL
  );
  `;

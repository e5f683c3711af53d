// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 38: each instance counted its rate limits alone, so N instances on one PostgreSQL
// allowed N times the limit. One row per limit and key (a digest of it: a client's address is
// not kept as such), its window's count and end; rows whose window ended are deleted.
export default `
  CREATE TABLE IF NOT EXISTS rate_limits (
    name text NOT NULL,
    key_digest text NOT NULL,
    count integer NOT NULL,
    until_ms bigint NOT NULL,
    PRIMARY KEY (name, key_digest)
  );
  CREATE INDEX IF NOT EXISTS rate_limits_until ON rate_limits (until_ms);
  `;

// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 38 and issue 33 item 4: a retried request must not pay twice. Each Idempotency-Key is
// kept per account (scope: merchant, mode and credential, or the operator) for 24 hours with a
// digest of the request (never its body) and its first answer; a request executing holds it
// with a lease, so another instance sharing the database waits for that answer.
export default `
  CREATE TABLE IF NOT EXISTS idempotency_keys (
    scope text NOT NULL,
    key text NOT NULL,
    endpoint text NOT NULL,
    fingerprint text NOT NULL,
    state text NOT NULL CHECK (state IN ('running', 'done')),
    holder text NOT NULL,
    lease_until_ms bigint NOT NULL,
    status integer,
    body text,
    headers text,
    withheld boolean NOT NULL DEFAULT false,
    created_ms bigint NOT NULL,
    PRIMARY KEY (scope, key)
  );
  CREATE INDEX IF NOT EXISTS idempotency_keys_created ON idempotency_keys (created_ms);
  `;

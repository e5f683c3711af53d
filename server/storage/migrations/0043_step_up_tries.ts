// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 48: a person's step-up proofs are counted per person and kind of factor ('totp',
// 'passkey', 'recovery_code') in the database, so every instance sharing it counts the same
// tries, whatever the client's address. Each proof takes a try before it is checked; one that
// passes clears the count; past the limit the kind is locked (`locked_ms`) until a recovery code
// is used or the owner unlocks the person.
export default `
  CREATE TABLE IF NOT EXISTS step_up_tries (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    holder text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('totp', 'passkey', 'recovery_code')),
    tries integer NOT NULL,
    locked_ms bigint,
    updated_ms bigint NOT NULL,
    PRIMARY KEY (merchant_id, holder, kind)
  );
`;

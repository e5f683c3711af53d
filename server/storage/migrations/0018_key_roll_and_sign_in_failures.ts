// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- Issue 23. A secret key rolled with a delay keeps working until revoked_after_ms, and is
  -- refused from then (null: until it is deleted). Wrong dashboard passwords are counted per
  -- e-mail and client address, so a stranger failing sign-ins locks out only their own
  -- address; the row with client '*' counts every client's failures against the e-mail (a
  -- high ceiling, lifted by the owner's new sign-in link).
  ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS revoked_after_ms bigint;
  CREATE TABLE IF NOT EXISTS sign_in_failures (
    email text NOT NULL,
    client text NOT NULL,
    failures integer NOT NULL,
    locked_until_ms bigint NOT NULL,
    last_ms bigint NOT NULL,
    PRIMARY KEY (email, client)
  );
  DROP TABLE IF EXISTS dashboard_failures;
  `;

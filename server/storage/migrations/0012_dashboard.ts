// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- The merchant's dashboard. Its owner signs in with the e-mail and a password set through a
  -- one-time link (only the link's SHA-256 is kept; it is used once and expires). Passwords
  -- are kept as scrypt hashes. Sessions are kept as hashes of their cookie; signing out
  -- everywhere deletes a merchant's rows. Wrong passwords are counted per e-mail. (IF NOT
  -- EXISTS: safe to run again, whatever its place in this list.)
  CREATE TABLE IF NOT EXISTS dashboard_logins (
    merchant_id uuid PRIMARY KEY REFERENCES merchants (id),
    email text NOT NULL,
    password_hash text,
    updated_ms bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS dashboard_logins_email ON dashboard_logins (lower(email));
  CREATE TABLE IF NOT EXISTS dashboard_links (
    hash text PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    expires_ms bigint NOT NULL,
    used_ms bigint
  );
  CREATE TABLE IF NOT EXISTS dashboard_sessions (
    hash text PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    csrf text NOT NULL,
    created_ms bigint NOT NULL,
    expires_ms bigint NOT NULL
  );
  CREATE INDEX IF NOT EXISTS dashboard_sessions_merchant ON dashboard_sessions (merchant_id);
  CREATE TABLE IF NOT EXISTS dashboard_failures (
    email text PRIMARY KEY,
    failures integer NOT NULL,
    locked_until_ms bigint NOT NULL,
    last_ms bigint NOT NULL
  );
  -- The payments list pages by (created_ms, id), newest first, and finds a customer's e-mail;
  -- a payment's timeline finds its events by the reference in their body.
  CREATE INDEX IF NOT EXISTS payments_list ON payments (merchant_id, mode, created_ms DESC, id DESC);
  CREATE INDEX IF NOT EXISTS payments_email ON payments (merchant_id, mode, lower(customer_email));
  CREATE INDEX IF NOT EXISTS transfers_payment ON transfers (payment_id);
  CREATE INDEX IF NOT EXISTS transfers_hash ON transfers (lower(tx_hash));
  CREATE INDEX IF NOT EXISTS chain_transfers_payment ON chain_transfers (payment_id);
  CREATE INDEX IF NOT EXISTS events_reference ON events (merchant_id, mode, ((body::jsonb -> 'data' ->> 'reference')));
  `;

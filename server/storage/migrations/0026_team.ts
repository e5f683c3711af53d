// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 37: a team, not a password. Members of a merchant (an e-mail, a role, a password hash),
// invitations to become one (hashes of their single-use tokens only), sessions that name the
// member who signed in (NULL: the owner), restricted secret keys (the permissions a key has;
// NULL: every one), and the audit log, append-only: a trigger refuses every UPDATE and DELETE.
export default `
  CREATE TABLE IF NOT EXISTS members (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    email text NOT NULL,
    role text NOT NULL,
    password_hash text NOT NULL,
    created_ms bigint NOT NULL
  );
  CREATE UNIQUE INDEX IF NOT EXISTS members_email ON members (merchant_id, lower(email));
  CREATE INDEX IF NOT EXISTS members_login ON members (lower(email));
  CREATE TABLE IF NOT EXISTS invitations (
    hash text PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    email text NOT NULL,
    role text NOT NULL,
    created_ms bigint NOT NULL,
    expires_ms bigint NOT NULL,
    used_ms bigint
  );
  CREATE INDEX IF NOT EXISTS invitations_merchant ON invitations (merchant_id);
  ALTER TABLE dashboard_sessions ADD COLUMN IF NOT EXISTS member_id uuid;
  CREATE INDEX IF NOT EXISTS dashboard_sessions_member ON dashboard_sessions (member_id);
  ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS permissions text;
  ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS id uuid;
  ALTER TABLE api_keys ADD COLUMN IF NOT EXISTS name text;
  CREATE TABLE IF NOT EXISTS audit_log (
    id bigserial PRIMARY KEY,
    merchant_id uuid NOT NULL,
    mode text NOT NULL,
    at_ms bigint NOT NULL,
    actor_kind text NOT NULL,
    actor_id text NOT NULL,
    actor_label text NOT NULL,
    client text NOT NULL,
    action text NOT NULL,
    target text,
    details text NOT NULL
  );
  CREATE INDEX IF NOT EXISTS audit_log_merchant ON audit_log (merchant_id, id);
  CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    RAISE EXCEPTION 'the audit log is append-only';
  END;
  $$;
  DROP TRIGGER IF EXISTS audit_log_append_only ON audit_log;
  CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
  `;

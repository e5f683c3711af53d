// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 37: second factors and step-up. A person's passkeys (WebAuthn credentials: id, public
// key, signature counter) and authenticator-app secrets (TOTP, with the last time step used, so
// a code is taken once), their recovery codes (SHA-256 hashes, each used once), the challenges
// the service handed out (single-use, short-lived), the owner's requirement of a second factor
// of every member, and the time a session last proved one (its step-up). `holder` is `owner`
// or a member's id: the person, not the merchant's mode.
export default `
  CREATE TABLE IF NOT EXISTS second_factors (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    holder text NOT NULL,
    kind text NOT NULL CHECK (kind IN ('passkey', 'totp')),
    label text NOT NULL,
    credential_id text,
    public_key text,
    counter bigint NOT NULL DEFAULT 0,
    transports text,
    totp_secret text,
    totp_last_step bigint NOT NULL DEFAULT 0,
    created_ms bigint NOT NULL,
    used_ms bigint
  );
  CREATE INDEX IF NOT EXISTS second_factors_holder ON second_factors (merchant_id, holder);
  CREATE UNIQUE INDEX IF NOT EXISTS second_factors_credential ON second_factors (credential_id) WHERE credential_id IS NOT NULL;
  CREATE TABLE IF NOT EXISTS recovery_codes (
    hash text PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    holder text NOT NULL,
    created_ms bigint NOT NULL,
    used_ms bigint
  );
  CREATE INDEX IF NOT EXISTS recovery_codes_holder ON recovery_codes (merchant_id, holder);
  CREATE TABLE IF NOT EXISTS factor_challenges (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    holder text NOT NULL,
    purpose text NOT NULL,
    challenge text NOT NULL,
    expires_ms bigint NOT NULL,
    PRIMARY KEY (merchant_id, holder, purpose)
  );
  CREATE TABLE IF NOT EXISTS second_factor_policy (
    merchant_id uuid PRIMARY KEY REFERENCES merchants (id),
    required boolean NOT NULL,
    updated_ms bigint NOT NULL
  );
  ALTER TABLE dashboard_sessions ADD COLUMN IF NOT EXISTS stepped_up_ms bigint;
  `;

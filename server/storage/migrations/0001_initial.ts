// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  CREATE TABLE merchants (
    id uuid PRIMARY KEY,
    business_name text NOT NULL,
    business_email text NOT NULL,
    business_logo text NOT NULL DEFAULT '',
    created_ms bigint NOT NULL
  );
  -- Secret keys are stored as SHA-256 hashes only, shown once at creation. A public key is
  -- public by design (it is in every checkout page), so its text is kept for hosted pages.
  CREATE TABLE api_keys (
    hash text PRIMARY KEY,
    public_text text,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL CHECK (mode IN ('test', 'live')),
    kind text NOT NULL CHECK (kind IN ('public', 'secret')),
    hint text NOT NULL,
    created_ms bigint NOT NULL
  );
  -- One webhook endpoint per account (merchant and mode), with its signing secret.
  CREATE TABLE webhook_endpoints (
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    url text,
    secret text NOT NULL,
    previous_secret text,
    previous_until_ms bigint,
    PRIMARY KEY (merchant_id, mode)
  );
  CREATE TABLE payments (
    id bigserial PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    reference text NOT NULL,
    created_by text NOT NULL CHECK (created_by IN ('public', 'secret', 'link')),
    payment_link_id uuid,
    coin text NOT NULL,
    chain_id integer NOT NULL,
    token text NOT NULL,
    decimals integer NOT NULL,
    currency text NOT NULL,
    fiat_minor bigint NOT NULL,
    due numeric(78, 0) NOT NULL,
    fee numeric(78, 0) NOT NULL,
    paid numeric(78, 0) NOT NULL DEFAULT 0,
    fiat_rate text NOT NULL,
    crypto_rate text NOT NULL,
    address text NOT NULL,
    accept_partial boolean NOT NULL,
    customer_name text NOT NULL,
    customer_email text NOT NULL,
    metadata jsonb,
    last_hash text,
    expires_ms bigint NOT NULL,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL,
    UNIQUE (merchant_id, mode, reference)
  );
  -- Money received, each transfer once: (chain, transaction hash, log index) is unique.
  CREATE TABLE transfers (
    id bigserial PRIMARY KEY,
    payment_id bigint NOT NULL REFERENCES payments(id),
    chain_id integer NOT NULL,
    tx_hash text NOT NULL,
    log_index integer NOT NULL,
    amount numeric(78, 0) NOT NULL,
    created_ms bigint NOT NULL,
    UNIQUE (chain_id, tx_hash, log_index)
  );
  -- The outbox: an event is written in the transaction of the change it reports.
  CREATE TABLE events (
    seq bigserial PRIMARY KEY,
    id text NOT NULL UNIQUE,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    type text NOT NULL,
    body text NOT NULL,
    state text NOT NULL CHECK (state IN ('pending', 'delivered', 'failed', 'no_endpoint')),
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_ms bigint,
    lease_until_ms bigint,
    -- Who holds the lease: only that claimer's result is recorded.
    lease_token text,
    -- Retries are tried for a window from here: the event's creation, or its last resend.
    retry_from_ms bigint NOT NULL,
    created_ms bigint NOT NULL
  );
  CREATE INDEX events_due ON events (next_attempt_ms) WHERE state = 'pending';
  CREATE INDEX events_feed ON events (merchant_id, mode, seq);
  CREATE TABLE event_attempts (
    id bigserial PRIMARY KEY,
    event_id text NOT NULL REFERENCES events(id),
    attempt integer NOT NULL,
    url text NOT NULL,
    status integer NOT NULL,
    error text,
    duration_ms integer NOT NULL,
    at_ms bigint NOT NULL,
    instance text NOT NULL
  );
  CREATE INDEX event_attempts_event ON event_attempts (event_id, attempt);
  CREATE TABLE prices (
    id uuid PRIMARY KEY,
    currency text NOT NULL,
    amount text NOT NULL,
    product jsonb NOT NULL
  );
  CREATE TABLE links (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    type text NOT NULL CHECK (type IN ('standard', 'donation')),
    slug text NOT NULL UNIQUE,
    is_active boolean NOT NULL,
    doc jsonb NOT NULL,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL
  );
  CREATE INDEX links_owner ON links (merchant_id, mode, created_ms);
  CREATE SEQUENCE cart_line_ids;
  CREATE TABLE files (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    content_type text NOT NULL,
    data bytea NOT NULL,
    created_ms bigint NOT NULL
  );
  CREATE TABLE bank_accounts (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    currency text NOT NULL,
    fields jsonb NOT NULL,
    is_default boolean NOT NULL,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL
  );
  CREATE TABLE payouts (
    id uuid PRIMARY KEY,
    merchant_id uuid NOT NULL REFERENCES merchants(id),
    mode text NOT NULL,
    bank_account_id uuid NOT NULL,
    coin text NOT NULL,
    units numeric(78, 0) NOT NULL,
    currency text NOT NULL,
    fiat_minor bigint NOT NULL,
    reference text NOT NULL,
    metadata jsonb,
    status text NOT NULL CHECK (status IN ('pending', 'processing', 'paid', 'failed')),
    failure text,
    provider_ref text,
    next_check_ms bigint,
    lease_until_ms bigint,
    created_ms bigint NOT NULL,
    updated_ms bigint NOT NULL,
    UNIQUE (merchant_id, mode, reference)
  );
  `;

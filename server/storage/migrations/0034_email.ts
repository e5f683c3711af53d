// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 37: e-mail (reserved as migration 0034; numbered after the last one on this branch).
// The outbox (`emails`): each e-mail rendered, due, leased by the instance sending it, tried
// again with backoff; its recipient and body (which may hold a one-time link) are cleared once
// it is sent or given up, so the table keeps no link and no address longer than needed.
// `email_events`: the events (storage/events.ts) that make e-mails, marked by a trigger in
// the event's own transaction, so none is missed or told twice whichever code path made it.
// `email_people`: each person's language and whether they want an e-mail for each payment.
// `known_devices`: the hashes of the device cookies a person signed in with (a new one is told).
export default `
  CREATE TABLE IF NOT EXISTS emails (
    id uuid PRIMARY KEY,
    merchant_id uuid,
    kind text NOT NULL,
    recipient text,
    subject text,
    text_body text,
    html_body text,
    state text NOT NULL,
    attempts integer NOT NULL DEFAULT 0,
    next_attempt_ms bigint,
    lease_until_ms bigint,
    lease_token text,
    created_ms bigint NOT NULL,
    done_ms bigint,
    last_error text
  );
  CREATE INDEX IF NOT EXISTS emails_due ON emails (next_attempt_ms) WHERE state = 'pending';
  CREATE TABLE IF NOT EXISTS email_events (
    event_id text PRIMARY KEY
  );
  CREATE OR REPLACE FUNCTION events_to_email() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO email_events (event_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
    PERFORM pg_notify('emails_due', NEW.id);
    RETURN NEW;
  END;
  $$;
  DROP TRIGGER IF EXISTS events_to_email ON events;
  CREATE TRIGGER events_to_email AFTER INSERT ON events FOR EACH ROW
    WHEN (NEW.type IN ('DEPOSIT_TRANSACTION', 'PAYOUT_UPDATED', 'WITHDRAWAL_UPDATED', 'PAYOUT_ADDRESS_PENDING', 'BANK_ACCOUNT_PENDING', 'WITHDRAWAL_ADDRESS_PENDING'))
    EXECUTE FUNCTION events_to_email();
  CREATE TABLE IF NOT EXISTS email_people (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    person text NOT NULL,
    language text NOT NULL,
    payment_received boolean NOT NULL,
    PRIMARY KEY (merchant_id, person)
  );
  CREATE TABLE IF NOT EXISTS known_devices (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    person text NOT NULL,
    device_hash text NOT NULL,
    seen_ms bigint NOT NULL,
    PRIMARY KEY (merchant_id, person, device_hash)
  );
  `;

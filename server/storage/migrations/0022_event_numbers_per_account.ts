// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 34: merchants saw events.seq, one sequence for the whole instance, so the gaps between
// their own events counted other merchants' (a competitor's volume). Each (merchant, mode) now
// numbers its own events 1, 2, 3…, from a counter row whose lock orders two writers of one
// account; events.seq stays the outbox's own order and is never shown.
export default `
  CREATE TABLE IF NOT EXISTS event_counters (
    merchant_id uuid NOT NULL REFERENCES merchants (id),
    mode text NOT NULL,
    last bigint NOT NULL,
    PRIMARY KEY (merchant_id, mode)
  );
  ALTER TABLE events ADD COLUMN IF NOT EXISTS account_seq bigint;
  UPDATE events e SET account_seq = n.number
    FROM (SELECT seq, row_number() OVER (PARTITION BY merchant_id, mode ORDER BY seq) AS number FROM events) n
    WHERE e.seq = n.seq AND e.account_seq IS NULL;
  INSERT INTO event_counters (merchant_id, mode, last)
    SELECT merchant_id, mode, max(account_seq) FROM events GROUP BY merchant_id, mode
    ON CONFLICT (merchant_id, mode) DO NOTHING;
  ALTER TABLE events ALTER COLUMN account_seq SET NOT NULL;
  CREATE UNIQUE INDEX IF NOT EXISTS events_account_feed ON events (merchant_id, mode, account_seq);
  `;

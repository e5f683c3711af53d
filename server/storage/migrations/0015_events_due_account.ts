// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
export default `
  -- Webhook delivery picks each account's oldest due events (claimDue): one index walk per account.
  CREATE INDEX IF NOT EXISTS events_due_account ON events (merchant_id, mode, next_attempt_ms) WHERE state = 'pending';
  `;

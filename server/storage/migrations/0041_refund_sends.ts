// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 47, a refund is its own thing: the treasury still pays a refund on `balance` settlement
// by a withdrawals row of the same id (its one nonce queue, lease, re-pricing and receipts), but
// that row's `purpose` says it is a refund's send: the withdrawal list, its events and e-mails,
// its metric and its share of the daily limit hold `withdrawal` rows only, and the refund moves
// with its send in the transaction that moves the send (refunds/use-cases.ts's sendMoved), no job
// between them. Every row a refund borrowed is marked; a refund the job had not followed yet
// (its send moved just before this upgrade) is brought to its send's state here (a failed one
// opens the case it resolved again, as the job did), not told: its send's state is in its answer.
export default `
  ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS purpose text NOT NULL DEFAULT 'withdrawal' CHECK (purpose IN ('withdrawal', 'refund'));
  UPDATE withdrawals SET purpose = 'refund' WHERE purpose = 'withdrawal' AND id IN (SELECT id FROM refunds);
  UPDATE payments SET resolution = NULL, resolved_ms = NULL, resolution_refund = NULL
   WHERE resolution = 'refunded' AND resolution_refund IN (SELECT r.id FROM refunds r JOIN withdrawals w ON w.id = r.id WHERE r.state IN ('ready', 'sent') AND w.state = 'failed');
  UPDATE chain_transfers SET resolution = NULL, resolved_ms = NULL, resolution_refund = NULL
   WHERE resolution = 'refunded' AND resolution_refund IN (SELECT r.id FROM refunds r JOIN withdrawals w ON w.id = r.id WHERE r.state IN ('ready', 'sent') AND w.state = 'failed');
  UPDATE refunds r SET state = CASE w.state WHEN 'completed' THEN 'confirmed' WHEN 'failed' THEN 'failed' ELSE 'sent' END, tx_hash = w.tx_hash, failure = w.failure, updated_ms = w.updated_ms
    FROM withdrawals w
   WHERE w.id = r.id AND r.state IN ('ready', 'sent') AND (w.state <> 'pending' OR (r.state = 'ready' AND w.tx_hash IS NOT NULL));
`;

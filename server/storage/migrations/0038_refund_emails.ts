// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 37's leftovers (reserved as migration 0039; numbered after the last one on this branch,
// since the loader refuses gaps). A refund's changes (REFUND_UPDATED) are marked for the e-mail
// job as the other told events are (0034's trigger), so a confirmed refund's receipt reaches
// the payment's customer: the list is email/rules.ts's MAILED_EVENTS.
export default `
  DROP TRIGGER IF EXISTS events_to_email ON events;
  CREATE TRIGGER events_to_email AFTER INSERT ON events FOR EACH ROW
    WHEN (NEW.type IN ('DEPOSIT_TRANSACTION', 'PAYOUT_UPDATED', 'WITHDRAWAL_UPDATED', 'PAYOUT_ADDRESS_PENDING', 'BANK_ACCOUNT_PENDING', 'WITHDRAWAL_ADDRESS_PENDING', 'REFUND_UPDATED'))
    EXECUTE FUNCTION events_to_email();
  `;

// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 33, item 7: a token that takes a fee on transfer its Transfer event does not show (the
// network flags it) loses that fee again when a deposit is swept. What the sweep's payout address
// gained of each transfer is kept here, and a balance-settled deposit is journaled at that (what
// the treasury holds), not at what the deposit was credited. NULL: every other token (the same).
export default `
  ALTER TABLE chain_transfers ADD COLUMN IF NOT EXISTS swept_received numeric;
`;

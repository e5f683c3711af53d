// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 33 item 4: a withdrawal may carry the network's fee (its token's `withdrawalFee` in
// NETWORKS_FILE, 0 by default), charged to the merchant beside the amount: reserved with it,
// paid to the operator's fees once the withdrawal is sent, returned with it if it fails. Kept
// on the row as it was when reserved, so a change of the file never changes a withdrawal under way.
export default `
  ALTER TABLE withdrawals ADD COLUMN IF NOT EXISTS network_fee numeric(78, 0) NOT NULL DEFAULT 0;
  `;

// Applied once, in order; its checksum is recorded: never edit it once released (add a new file).
// Issue 48: the support members' daily refund limit is kept per mode. The one value both modes
// shared (which a test key could set for live too) stays test mode's; live mode starts again
// from the operator's default (SUPPORT_REFUND_DAILY_LIMIT) until the owner or an admin sets it
// from live mode, stepped up: a limit a test key may have raised does not carry into live.
export default `
  ALTER TABLE merchants ADD COLUMN IF NOT EXISTS support_refund_limit_live_cents numeric(78, 0);
`;

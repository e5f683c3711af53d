// Every table and the one feature that owns it: a folder of server/ whose stores alone write SQL
// naming it. Another feature reaches the table through a function of the owner's store that
// takes the caller's transaction, never by SQL of its own (server/tests/tables.test.ts holds
// every table a migration creates to this map, and every query to its owner). The plumbing's
// own tables (the outbox, leases, idempotency, rate limits) belong to storage/. Tables a later
// migration dropped stay listed: their migrations still create them.
export const TABLE_OWNERS = {
  // merchants/: the account, its keys, where its money goes (the bank accounts are the payouts')
  merchants: 'merchants',
  api_keys: 'merchants',
  webhook_endpoints: 'merchants',
  payout_addresses: 'merchants',
  destination_changes: 'merchants',
  merchant_fees: 'merchants',
  // payments/: what is due, and the transfers that paid it
  payments: 'payments',
  transfers: 'payments',
  // chain/: what the watcher saw, the sweeps, the reconciliation's checks
  chain_cursors: 'chain',
  chain_blocks: 'chain',
  chain_transfers: 'chain',
  chain_sweepers: 'chain',
  deposit_checks: 'chain',
  relays: 'chain',
  // balances/: the journal, swaps, withdrawals, partner transfers, the treasury's transactions
  settlements: 'balances',
  journal_entries: 'balances',
  postings: 'balances',
  swaps: 'balances',
  withdrawals: 'balances',
  withdrawal_limits: 'balances',
  withdrawal_daily_limits: 'balances',
  partner_transfers: 'balances',
  treasury_leases: 'balances',
  treasury_findings: 'balances',
  treasury_holds: 'balances',
  treasury_replacements: 'balances',
  operator_events: 'balances',
  // the other features
  links: 'links',
  files: 'links',
  products: 'products',
  prices: 'products',
  subscription_plans: 'subscriptions',
  subscriptions: 'subscriptions',
  subscription_charges: 'subscriptions',
  payouts: 'payouts',
  bank_accounts: 'payouts',
  refunds: 'refunds',
  refund_transfers: 'refunds',
  dashboard_logins: 'dashboard',
  dashboard_links: 'dashboard',
  dashboard_sessions: 'dashboard',
  dashboard_failures: 'dashboard',
  sign_in_failures: 'dashboard',
  members: 'team',
  invitations: 'team',
  audit_log: 'audit',
  second_factors: 'factors',
  recovery_codes: 'factors',
  factor_challenges: 'factors',
  second_factor_policy: 'factors',
  step_up_tries: 'factors',
  emails: 'email',
  email_events: 'email',
  email_people: 'email',
  known_devices: 'email',
  rate_history: 'rates',
  // storage/: the plumbing every feature shares
  events: 'storage',
  event_attempts: 'storage',
  event_counters: 'storage',
  leases: 'storage',
  idempotency_keys: 'storage',
  rate_limits: 'storage',
} as const;

export type Table = keyof typeof TABLE_OWNERS;

// The machine-readable `code` of every error answer, beside its message and field errors: one
// per kind of refusal, snake_case, stable (a new kind gets a new code; none is renamed). Each
// code has one HTTP status. The OpenAPI document lists, per operation, the codes it may answer.
export const ERROR_CODES = {
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  csrf_rejected: 403,
  permission_denied: 403,
  sandbox_unavailable: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  reference_in_use: 409,
  email_in_use: 409,
  insufficient_balance: 409,
  withdrawal_limit_exceeded: 409,
  quote_used: 409,
  quote_expired: 409,
  wrong_token: 409,
  payment_state: 409,
  link_inactive: 409,
  coin_unavailable: 409,
  chain_not_offered: 409,
  destination_pending: 409,
  payout_address_required: 409,
  balance_settlement_required: 409,
  not_configured: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;
export type ErrorCode = keyof typeof ERROR_CODES;

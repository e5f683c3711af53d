// A refund as the wire shows it (contract/refunds.ts): shaping only.
import { formatUnits } from '../../contract/money.ts';
import type { RefundView } from '../../contract/refunds.ts';
import type { StoredRefund } from './rules.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export const refundView = (r: StoredRefund): RefundView => ({
  id: r.id,
  reference: r.reference,
  coin: r.coin,
  chain_id: r.chainId,
  address: r.address,
  amount: String(r.amount),
  amount_exact: formatUnits(r.amount, r.decimals),
  reason: r.reason,
  settlement: r.settlement,
  status: r.state,
  tx_hash: r.txHash,
  failure: r.failure,
  claim_expires_at: r.claimExpiresMs === null ? null : iso(r.claimExpiresMs),
  createdAt: iso(r.createdMs),
  updatedAt: iso(r.updatedMs),
});

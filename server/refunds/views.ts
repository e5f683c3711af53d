// A refund as the wire shows it (contract/refunds.ts): shaping only.
import { formatUnits } from '../../contract/money.ts';
import type { RefundView } from '../../contract/refunds.ts';
import { paymentUriOfUnits } from '../../contract/payment-uri.ts';
import { getAddress } from 'viem';
import type { StoredRefund } from './rules.ts';

/** A wallet refund's one transfer, once its address is known (the merchant's wallet sends it). */
const transferOf = (r: StoredRefund): RefundView['transfer'] => {
  if (r.settlement !== 'wallet' || !r.address) return null;
  const token = getAddress(r.token);
  const to = getAddress(r.address);
  return {
    uri: paymentUriOfUnits({ contractAddress: token, chainId: r.chainId }, to, r.amount),
    token,
    chain_id: r.chainId,
    to,
    amount: formatUnits(r.amount, r.decimals),
    amount_base_units: String(r.amount),
  };
};

const iso = (ms: number) => new Date(ms).toISOString();

export const refundView = (r: StoredRefund): RefundView => ({
  id: r.id,
  reference: r.reference,
  coin: r.coin,
  chain_id: r.chainId,
  address: r.address,
  // Exact decimal text of the coin, as every amount of the API; the two others kept for older clients.
  amount: formatUnits(r.amount, r.decimals),
  amount_exact: formatUnits(r.amount, r.decimals),
  amount_base_units: String(r.amount),
  reason: r.reason,
  settlement: r.settlement,
  status: r.state,
  tx_hash: r.txHash,
  failure: r.failure,
  claim_expires_at: r.claimExpiresMs === null ? null : iso(r.claimExpiresMs),
  transfer: transferOf(r),
  createdAt: iso(r.createdMs),
  updatedAt: iso(r.updatedMs),
});

// Swaps and withdrawals as the merchant sees them (answers and SWAP_UPDATED / WITHDRAWAL_UPDATED
// events alike): exact decimal text of each coin, no storage bookkeeping.
import type { SwapView, WithdrawalView } from '../../contract/balances.ts';
import { formatUnits } from '../../contract/money.ts';
import { rateText, SWAP_SLIPPAGE_BPS, type StoredSwap, type StoredWithdrawal } from './ledger-rules.ts';

const iso = (ms: number) => new Date(ms).toISOString();

export const swapView = (s: StoredSwap): SwapView => {
  const out = s.amountOut ?? s.poolOut;
  return {
    id: s.id,
    from: s.fromSymbol,
    to: s.toSymbol,
    chain_id: s.chainId,
    amount: formatUnits(s.amountIn, s.fromDecimals),
    rate: rateText(s.amountIn, s.fromDecimals, out, s.toDecimals),
    amount_received: formatUnits(out - s.fee, s.toDecimals),
    fee: formatUnits(s.fee, s.toDecimals),
    minimum_received: formatUnits(s.minimumOut, s.toDecimals),
    slippage_bps: Number(SWAP_SLIPPAGE_BPS),
    status: s.state,
    expires_at: iso(s.expiresMs),
    tx_hash: s.txHash && s.state !== 'quoted' ? s.txHash : null,
    failure: s.failure,
    createdAt: iso(s.createdMs),
    updatedAt: iso(s.updatedMs),
  };
};

export const withdrawalView = (w: StoredWithdrawal): WithdrawalView => ({
  id: w.id,
  coin: w.symbol,
  chain_id: w.chainId,
  address: w.address,
  amount: formatUnits(w.amount, w.decimals),
  status: w.state,
  tx_hash: w.txHash,
  failure: w.failure,
  createdAt: iso(w.createdMs),
  updatedAt: iso(w.updatedMs),
});

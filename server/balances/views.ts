// Swaps and withdrawals as the merchant sees them (answers and SWAP_UPDATED / WITHDRAWAL_UPDATED
// events alike): exact decimal text of each coin, no storage bookkeeping.
import type { SwapView, WithdrawalView } from '../../contract/balances.ts';
import { formatUnits } from '../../contract/money.ts';
import { minimumReceived, rateText, SWAP_SLIPPAGE_BPS, type StatementLine, type StoredSwap, type StoredWithdrawal } from './ledger-rules.ts';

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
    // The worst case: the pool's floor, less the operator's fee taken from it.
    minimum_received: formatUnits(minimumReceived(s.minimumOut), s.toDecimals),
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
  network_fee: formatUnits(w.networkFee, w.decimals),
  status: w.state,
  tx_hash: w.txHash,
  failure: w.failure,
  createdAt: iso(w.createdMs),
  updatedAt: iso(w.updatedMs),
});

/** What a journal entry refers to, as its line in a statement says it: the payment (by reference), payout, swap or withdrawal. */
export function refersTo(kind: string, ref: string, memo: string): string {
  if (kind === 'deposit' || kind === 'sandbox_deposit') return `payment ${/^payment ([^\s,]+)/.exec(memo)?.[1] ?? ref}`;
  const thing = /^(payout|swap|withdrawal)_/.exec(kind)?.[1];
  return thing ? `${thing} ${ref}` : `${kind} ${ref}`;
}

/** A statement line as the API answers it; the coin, its network and decimals from the catalogue. */
/** `idOf`: a posting's and an entry's number as answered (opaque, http/opaque-ids.ts). */
export function statementView(
  line: StatementLine,
  coin: { symbol: string; network: string; decimals: number },
  idOf: (list: 'statement' | 'entry', n: number) => string,
) {
  return {
    id: idOf('statement', line.id),
    entry: idOf('entry', line.entryId),
    date: iso(line.createdMs),
    kind: line.kind,
    refers_to: refersTo(line.kind, line.ref, line.memo),
    memo: line.memo,
    coin: coin.symbol,
    chain_id: line.chainId,
    network: coin.network,
    account: line.purpose,
    amount: formatUnits(line.amount, coin.decimals),
    balance: formatUnits(line.running, coin.decimals),
  };
}

export const STATEMENT_CSV_COLUMNS = ['date_utc', 'entry', 'kind', 'refers_to', 'memo', 'coin', 'chain_id', 'network', 'account', 'amount', 'balance'] as const;

/** A CSV field: quoted when it must be; text a spreadsheet would run as a formula starts with an apostrophe (amounts, being numbers, are left as they are). */
const csvText = (value: string) => {
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
};

export function statementCsvLine(v: ReturnType<typeof statementView>): string {
  return [
    csvText(v.date),
    v.entry,
    csvText(v.kind),
    csvText(v.refers_to),
    csvText(v.memo),
    csvText(v.coin),
    String(v.chain_id),
    csvText(v.network),
    v.account,
    v.amount,
    v.balance,
  ].join(',');
}

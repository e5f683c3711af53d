// The double-entry ledger's rules, without I/O: accounts by name, an entry's postings that
// sum to zero per coin, and what a swap quote gives. A balance is a sum of postings, never a
// stored number; balances/journal-store.ts writes and sums them, balances/use-cases.ts spends them.
//
// Signs: a merchant's accounts and the operator's fees are positive when the service owes or
// holds that money; the `external:*` accounts are the world outside the treasury (customers'
// deposits, the pool, wallets, banks) and carry the other side. So for each coin the money the
// treasury holds on chain is minus the sum of the external accounts, which equals the sum of
// every merchant's accounts plus the fees: the reconciliation.
import type { KeyMode } from '../../contract/keys.ts';
import type { SwapState } from '../../contract/balances.ts';
import { InsufficientBalance, Invalid, QuoteExpired, QuoteUsed, SwapRateDeviates, WithdrawalLimitExceeded } from '../domain/errors.ts';
import { RATE_ONE } from '../domain/rates.ts';

export interface Posting {
  account: string;
  chainId: number;
  /** The token's contract address (lower case), or the symbol for the sandbox's simulated coins. */
  token: string;
  /** Base units of the token; positive or negative. */
  amount: bigint;
}

/** What kinds of movement there are; each entry's (kind, ref) is unique, so a retry writes it once. */
export type EntryKind =
  | 'deposit' // a balance-settled deposit swept into the treasury
  | 'deposit_reversed' // that deposit taken back: its transfer left the chain in a reorganisation deeper than the confirmations (ref: the deposit's)
  | 'sandbox_deposit' // a simulated deposit where no chain is configured (test keys only)
  | 'payout_reserved'
  | 'payout_paid'
  | 'payout_returned'
  | 'swap_reserved'
  | 'swap_completed' // a swap counted on chain (ref: its id, `id#n` counted again after n undone)
  | 'swap_unsent' // that swap taken off the chain by a reorganisation deeper than the confirmations: `swap_completed` negated, the coin sent back in reserved (ref: the completed entry's)
  | 'swap_returned'
  | 'withdrawal_reserved'
  | 'withdrawal_sent' // a send (a withdrawal, a refund's) counted on chain (ref: its id, `id#n` counted again after n undone)
  | 'withdrawal_unsent' // that send taken off the chain by a reorganisation deeper than the confirmations: its money back in reserved (ref: the sent entry's)
  | 'withdrawal_returned'
  | 'partner_sent' // what was owed to the payout partner, sent to its deposit address (ref: its id, `id#n` counted again after n undone)
  | 'partner_unsent' // that transfer taken off the chain by a reorganisation deeper than the confirmations: owed to the partner again (ref: the sent entry's)
  | 'gas' // the native coin a treasury transaction cost (ref: chain/tx hash)
  | 'gas_funded' // native coin the operator sent the treasury to pay gas with
  | 'sponsored_gas'; // the native coin the gas wallet paid to relay a customer's signed transfer (ref: chain/tx hash)

/** A posting to a merchant's available or reserved account, with its entry and that account's balance after it. */
export interface StatementLine {
  id: number;
  entryId: number;
  kind: EntryKind;
  ref: string;
  memo: string;
  createdMs: number;
  purpose: 'available' | 'reserved';
  chainId: number;
  token: string;
  amount: bigint;
  running: bigint;
}

/** A merchant's money, by purpose: `available` to spend, `reserved` for work under way. */
export const merchantAccount = (merchantId: string, mode: KeyMode | string, purpose: 'available' | 'reserved') => `merchant:${merchantId}:${mode}:${purpose}`;
/** What the operator owes its payout partner for bank payouts paid: USDT in the treasury until it is sent to the partner. */
export const PAYOUT_PAYABLE = 'payable:payout-partner';
/** The operator's fees (swaps, withdrawals' network fees, and payments on `balance` settlement), held in the treasury. */
export const FEES = 'operator:fees';
/**
 * The operator's native coin in the treasury, for gas: what it sent in (+) less what the
 * treasury's transactions cost (−). Only ever in the native coin (token NATIVE).
 */
export const GAS = 'operator:gas';
/**
 * What relaying signed transfers (paying with one signature) cost the operator for one
 * merchant and mode, per chain (the posting's chain, in its native coin): an expense, positive.
 */
export const sponsoredGasAccount = (merchantId: string, mode: KeyMode | string) => `operator:sponsored-gas:${merchantId}:${mode}`;
/**
 * The gas wallet's native coin, the other side of sponsored gas: funded outside the journal (the
 * operator sends it native coin directly), so it runs negative, minus what relays spent from it.
 * Neither account is the treasury's: the treasury's reconciliation counts neither.
 */
export const GAS_WALLET = 'operator:gas-wallet';
/** The native coin's "token" in postings: the zero address. */
export const NATIVE = '0x0000000000000000000000000000000000000000';
export const EXTERNAL = {
  deposits: 'external:deposits',
  sandbox: 'external:sandbox',
  pool: 'external:pool',
  wallets: 'external:wallets',
  banks: 'external:banks',
  /** The payout partner's deposit address: what it was owed for bank payouts, once sent. */
  partner: 'external:payout-partner',
  /** What the network was paid for the treasury's transactions (gas). */
  gas: 'external:gas',
  /** The operator's own wallets, which fund the treasury's gas. */
  operator: 'external:operator',
} as const;

/** Throws unless every coin's postings sum to zero and no posting is zero. */
export function assertBalanced(postings: Posting[]): void {
  if (postings.length < 2) throw new Error('a journal entry needs at least two postings');
  const sums = new Map<string, bigint>();
  for (const p of postings) {
    if (p.amount === 0n) throw new Error(`a posting of zero to ${p.account}`);
    const coin = `${p.chainId}/${p.token.toLowerCase()}`;
    sums.set(coin, (sums.get(coin) ?? 0n) + p.amount);
  }
  for (const [coin, sum] of sums) if (sum !== 0n) throw new Error(`journal entry does not balance: ${coin} sums to ${sum}`);
}

/** Moves `amount` of one coin from one account to another: the two postings. */
export const move = (from: string, to: string, chainId: number, token: string, amount: bigint): Posting[] => [
  { account: from, chainId, token, amount: -amount },
  { account: to, chainId, token, amount },
];

/** The operator's fee on a swap, in basis points of what the pool gives. */
export const SWAP_FEE_BPS = 30n;
/** How far below its quote a swap's output may fall before the swap fails (slippage limit), in basis points. */
export const SWAP_SLIPPAGE_BPS = 50n;
/** How long a swap quote may be accepted. */
export const SWAP_QUOTE_MS = 60_000;

/** What a quote promises: the pool's output for `amountIn`, the fee out of it, and the floor. */
export function swapTerms(poolOut: bigint): { fee: bigint; received: bigint; minimumOut: bigint } {
  const fee = (poolOut * SWAP_FEE_BPS) / 10_000n;
  return { fee, received: poolOut - fee, minimumOut: (poolOut * (10_000n - SWAP_SLIPPAGE_BPS)) / 10_000n };
}

/** The least a swap can give the merchant: the pool's floor (`minimumOut`) less the operator's fee on it. */
export const minimumReceived = (minimumOut: bigint): bigint => minimumOut - (minimumOut * SWAP_FEE_BPS) / 10_000n;

/** How far a swap quote's pool price may be from the rate provider's, in basis points, where the network sets none (`swapRateLimitBps`). */
export const SWAP_RATE_LIMIT_BPS = 100;

/**
 * Whether a pool's price for a swap is near the rate provider's: what the pool
 * gives for `amountIn` against what the coins' US dollar rates say it is worth; refused (a
 * Conflict naming `amount`) when they differ by more than `limitBps` either way: a thin pool, or
 * one moved (by a large trade, or on purpose) since. Answers the difference in basis points.
 */
export function checkSwapRate(
  swap: { amountIn: bigint; inDecimals: number; poolOut: bigint; outDecimals: number; from: string; to: string },
  usdPerCoin: { from: bigint; to: bigint },
  limitBps: number,
): number {
  const expected = (swap.amountIn * usdPerCoin.from * 10n ** BigInt(swap.outDecimals)) / (usdPerCoin.to * 10n ** BigInt(swap.inDecimals));
  const off = expected === 0n ? 10_000n : ((swap.poolOut > expected ? swap.poolOut - expected : expected - swap.poolOut) * 10_000n) / expected;
  if (off <= BigInt(limitBps)) return Number(off);
  const pct = (bps: bigint) => `${bps / 100n}.${String(bps % 100n).padStart(2, '0')}%`;
  const market = rateText(swap.amountIn, swap.inDecimals, expected, swap.outDecimals);
  throw new SwapRateDeviates(
    `amount: the pool's price for ${swap.from} to ${swap.to} (${rateText(swap.amountIn, swap.inDecimals, swap.poolOut, swap.outDecimals)}) is ${pct(off)} from the market rate (${market}), more than this network's limit of ${pct(BigInt(limitBps))}: the pool is too thin for this amount or has moved; nothing was quoted, try a smaller amount or later`,
    [{ field: 'amount', message: `expected a pool price within ${pct(BigInt(limitBps))} of the market rate` }],
  );
}

/** A decimal amount's base units, or a clear error naming the field. */
export function unitsOf(field: string, text: string, decimals: number): bigint {
  const [whole, fraction = ''] = text.split('.');
  if (fraction.length > decimals)
    throw new Invalid(`${field}: expected at most ${decimals} decimal places for this coin, received ${text}`, [
      { field, message: `expected at most ${decimals} decimal places` },
    ]);
  const units = BigInt(whole + fraction.padEnd(decimals, '0'));
  if (units <= 0n) throw new Invalid(`${field}: expected an amount greater than 0`, [{ field, message: 'expected an amount greater than 0' }]);
  return units;
}

/** A rate as exact decimal text: units of `to` per unit of `from`, to 18 places, from base units. */
export function rateText(amountIn: bigint, inDecimals: number, out: bigint, outDecimals: number): string {
  const scaled = (out * 10n ** BigInt(inDecimals) * 10n ** 18n) / (amountIn * 10n ** BigInt(outDecimals));
  const digits = scaled.toString().padStart(19, '0');
  const fraction = digits.slice(-18).replace(/0+$/, '');
  return digits.slice(0, -18) + (fraction ? '.' + fraction : '');
}

/** A swap as stored: amounts in base units of its coins. */
export interface StoredSwap {
  id: string;
  merchantId: string;
  mode: string;
  chainId: number;
  fromSymbol: string;
  toSymbol: string;
  fromToken: string;
  toToken: string;
  fromDecimals: number;
  toDecimals: number;
  amountIn: bigint;
  poolOut: bigint;
  fee: bigint;
  minimumOut: bigint;
  amountOut: bigint | null;
  state: SwapState;
  expiresMs: number;
  txHash: string | null;
  rawTx: string | null;
  failure: string | null;
  createdMs: number;
  updatedMs: number;
}

/** A withdrawal as stored. */
export interface StoredWithdrawal {
  id: string;
  merchantId: string;
  mode: string;
  chainId: number;
  symbol: string;
  token: string;
  decimals: number;
  address: string;
  amount: bigint;
  /** The network's fee charged beside the amount, reserved with it and the operator's once sent (0: none). */
  networkFee: bigint;
  state: 'pending' | 'completed' | 'failed';
  /** What the treasury pays it for: a withdrawal to the merchant's wallet, or a refund's send (the refund's own). */
  purpose: 'withdrawal' | 'refund';
  txHash: string | null;
  rawTx: string | null;
  failure: string | null;
  createdMs: number;
  updatedMs: number;
}

/**
 * A configured amount of whole tokens (decimal text: a limit, a minimum) in a coin's base units,
 * rounded down where it has more decimal places than the coin: a threshold never rounds up.
 */
export function configuredUnits(text: string, decimals: number): bigint {
  const [whole, fraction = ''] = text.split('.');
  return BigInt((whole || '0') + fraction.slice(0, decimals).padEnd(decimals, '0'));
}

/** A day, as withdrawal limits count it: the last 24 hours, rolling (no midnight to straddle). */
export const WITHDRAWAL_WINDOW_MS = 86_400_000;
/** The currency withdrawal limits are kept in, and its minor units (cents). */
export const LIMIT_CURRENCY = 'USD';
export const LIMIT_DECIMALS = 2;

/**
 * What `amount` base units of a coin of `decimals` are worth in US cents at `usdPerCoin` (units at
 * RATE_DECIMALS), rounded UP: a limit never lets a fraction of a cent through.
 */
export function usdCentsOf(amount: bigint, decimals: number, usdPerCoin: bigint): bigint {
  const numerator = amount * usdPerCoin * 10n ** BigInt(LIMIT_DECIMALS);
  const denominator = 10n ** BigInt(decimals) * RATE_ONE;
  return (numerator + denominator - 1n) / denominator;
}

const usd = (cents: bigint) => `${cents / 100n}.${String(cents % 100n).padStart(2, '0')}`;

/** The daily limit as GET /api/v1/withdrawals/limit answers it: the limit, what left in the window and what is left (never below 0), in dollars. */
export function limitView(limitCents: bigint, spentCents: bigint) {
  return {
    currency: LIMIT_CURRENCY,
    daily: usd(limitCents),
    spent: usd(spentCents),
    left: usd(limitCents > spentCents ? limitCents - spentCents : 0n),
    window_hours: WITHDRAWAL_WINDOW_MS / 3_600_000,
  };
}

/**
 * Whether a withdrawal (or bank payout) fits its merchant's daily limit, all in US cents: refused
 * (a Conflict naming `amount`, the limit and what is left of it) when its value and what left the
 * balance in the last 24 hours, in any coin on any chain, pass it.
 */
export function checkWithdrawalLimit(valueCents: bigint, limitCents: bigint, spentCents: bigint, coin: { symbol: string; text: string }): void {
  if (spentCents + valueCents <= limitCents) return;
  const left = limitCents > spentCents ? limitCents - spentCents : 0n;
  throw new WithdrawalLimitExceeded(
    `amount: ${coin.text} ${coin.symbol} (${usd(valueCents)} USD) is over your daily withdrawal limit of ${usd(limitCents)} USD (${usd(spentCents)} USD withdrawn in the last 24 hours, ${usd(left)} USD left, across every coin and network); the operator sets the limit`,
    [{ field: 'amount', message: `expected at most ${usd(left)} USD worth: the daily withdrawal limit is ${usd(limitCents)} USD` }],
  );
}

/** Whether a balance covers `amount`: refused (a Conflict naming `field` and what there is) when it does not. */
export function checkBalance(amount: bigint, available: bigint, coin: { symbol: string; format: (units: bigint) => string }, field = 'amount'): void {
  if (amount <= available) return;
  throw new InsufficientBalance(`${field}: ${coin.format(amount)} ${coin.symbol} is more than the balance of ${coin.format(available)} ${coin.symbol}`, [
    { field, message: `expected at most ${coin.format(available)}` },
  ]);
}

/** Whether a swap quote may still be accepted: refused (a Conflict naming `quote_id`) once used or expired. */
export function checkQuoteUsable(quoted: Pick<StoredSwap, 'id' | 'state' | 'expiresMs'>, nowMs: number): void {
  if (quoted.state !== 'quoted')
    throw new QuoteUsed(`quote_id: quote ${quoted.id} was used already (its swap is ${quoted.state})`, [
      { field: 'quote_id', message: 'expected a quote not used yet' },
    ]);
  if (quoted.expiresMs <= nowMs)
    throw new QuoteExpired(`quote_id: quote ${quoted.id} expired at ${new Date(quoted.expiresMs).toISOString()}; ask for a new one`, [
      { field: 'quote_id', message: 'expected a quote that has not expired' },
    ]);
}

/**
 * A swap's outcome as one journal entry: done, the reserved coin goes to the pool and what the
 * pool gave, less the operator's fee, is the merchant's; failed, the reserved amount goes back.
 */
export function swapOutcome(swap: StoredSwap, result: { out: bigint } | { failure: string }): { fee: bigint; postings: Posting[] } {
  const available = merchantAccount(swap.merchantId, swap.mode, 'available');
  const reserved = merchantAccount(swap.merchantId, swap.mode, 'reserved');
  if (!('out' in result)) return { fee: 0n, postings: move(reserved, available, swap.chainId, swap.fromToken, swap.amountIn) };
  const { fee } = swapTerms(result.out);
  return {
    fee,
    postings: [
      ...move(reserved, EXTERNAL.pool, swap.chainId, swap.fromToken, swap.amountIn),
      { account: EXTERNAL.pool, chainId: swap.chainId, token: swap.toToken, amount: -result.out },
      { account: available, chainId: swap.chainId, token: swap.toToken, amount: result.out - fee },
      ...(fee > 0n ? [{ account: FEES, chainId: swap.chainId, token: swap.toToken, amount: fee }] : []),
    ],
  };
}

/**
 * A withdrawal sent, as one entry's postings: what was reserved leaves the merchant's reserved
 * money, the amount to the wallet and the network's fee, if any, to the operator's fees (the
 * treasury keeps it; its gas is the operator's `gas` entry).
 */
export function withdrawalSent(w: Pick<StoredWithdrawal, 'chainId' | 'token' | 'amount' | 'networkFee'>, reserved: string): Posting[] {
  if (w.networkFee <= 0n) return move(reserved, EXTERNAL.wallets, w.chainId, w.token, w.amount);
  return [
    { account: reserved, chainId: w.chainId, token: w.token, amount: -(w.amount + w.networkFee) },
    { account: EXTERNAL.wallets, chainId: w.chainId, token: w.token, amount: w.amount },
    { account: FEES, chainId: w.chainId, token: w.token, amount: w.networkFee },
  ];
}

/**
 * The ref of a send's `withdrawal_sent` entry once its counting was undone `unsent` times (a
 * reorganisation took its transaction off the chain, and it was sent again): its id, then `id#n`.
 * Its `withdrawal_unsent` entry carries the ref of the entry it undoes.
 */
export const sentRef = (id: string, unsent: number): string => (unsent > 0 ? `${id}#${unsent}` : id);

/** A counted send undone (a reorganisation took it off the chain): `withdrawalSent` negated, its money back in `reserved`. */
export const withdrawalUnsent = (w: Pick<StoredWithdrawal, 'chainId' | 'token' | 'amount' | 'networkFee'>, reserved: string): Posting[] =>
  withdrawalSent(w, reserved).map((p) => ({ ...p, amount: -p.amount }));

/**
 * What the treasury asks of every send it makes: a withdrawal, a refund, a send-back
 * and a bank payout alike. `minimum`: the smallest amount it sends of the token (each send costs
 * the operator a transfer's gas and a place in the chain's one nonce queue every merchant waits
 * behind); `fee`: the network's fee charged to the merchant beside the amount, kept by the
 * operator. The recipient always receives the amount asked, whole.
 */
export interface SendTerms {
  minimum: bigint;
  fee: bigint;
}

/**
 * The network fee of a send of `amount` (base units) on the token's terms, or a 400 naming
 * `field` when it is below the token's minimum (`what`: the send and where, as the message says
 * it: "withdrawal on BNB Smart Chain"). No terms (a coin of no configured network: the
 * sandbox's, which sends nothing): no minimum and no fee.
 */
export function sendFee(
  amount: bigint,
  terms: SendTerms | undefined,
  coin: { symbol: string; format: (units: bigint) => string },
  field: string,
  what: string,
): bigint {
  if (!terms) return 0n;
  if (amount < terms.minimum) {
    throw new Invalid(
      `${field}: ${coin.format(amount)} ${coin.symbol} is below ${coin.format(terms.minimum)} ${coin.symbol}, the smallest ${what} (each send of the treasury costs the operator a transfer's gas)`,
      [{ field, message: `expected at least ${coin.format(terms.minimum)} ${coin.symbol}, the smallest ${what}` }],
    );
  }
  return terms.fee;
}

/** What is owed to the payout partner is sent once it reaches `minimum`, or once the oldest of it has waited `maxWaitMs`. */
export function partnerDue(owed: bigint, minimum: bigint, owedSinceMs: number | null, maxWaitMs: number, nowMs: number): boolean {
  if (owed <= 0n) return false;
  return owed >= minimum || (owedSinceMs !== null && nowMs - owedSinceMs >= maxWaitMs);
}

/** A withdrawal asked for: the coin, where to, how much (base units) and the network's fee beside it. */
export type WithdrawalRequest = Pick<StoredWithdrawal, 'chainId' | 'symbol' | 'token' | 'decimals' | 'address' | 'amount' | 'networkFee'> & {
  format: (units: bigint) => string;
  /** What one of the coin is worth in US dollars now (units at RATE_DECIMALS), to count it against the daily limit. */
  usdPerCoin: bigint;
};

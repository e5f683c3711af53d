// The wire shapes of a merchant's money held by the service (`balance` settlement): the
// settlement choice, balances, swaps between coins and withdrawals to a wallet. Amounts are
// exact decimal text of the coin, never a float.
import * as z from 'zod/mini';
import { coin, int, is, later, nullable, oneOf, text, timestamp } from './fields.ts';
import { pageAnswer, pageQuery } from './paging.ts';

export const SETTLEMENTS = ['wallet', 'balance'] as const;
export type Settlement = (typeof SETTLEMENTS)[number];

const decimal = is<string>(
  (v) => typeof v === 'string' && /^\d{1,18}(\.\d{1,36})?$/.test(v) && /[1-9]/.test(v),
  'an amount greater than 0 as decimal text, such as "12.5"',
);
const coinSymbol = coin;

/** PUT /api/v1/settlement: where this mode's new payments are swept. */
export const SettlementBody = later(() => z.object({ settlement: oneOf(SETTLEMENTS) }));

/** POST /api/v1/swaps/quote */
export const SwapQuoteBody = later(() =>
  z.object({
    from: coinSymbol,
    to: coinSymbol,
    amount: decimal,
    /** The chain whose treasury swaps (both coins are on it); needed where the mode has several that take the coins. */
    chain_id: z.optional(is<number>((v) => Number.isSafeInteger(v) && (v as number) > 0, 'a chain id such as 56')),
  }),
);

/** POST /api/v1/swaps */
export const SwapBody = later(() =>
  z.object({ quote_id: is<string>((v) => typeof v === 'string' && /^[0-9a-f-]{36}$/.test(v), 'a quote id from POST /api/v1/swaps/quote') }),
);

/** POST /api/v1/withdrawals */
export const WithdrawalBody = later(() =>
  z.object({
    coin: coinSymbol,
    chain_id: is<number>((v) => Number.isSafeInteger(v) && (v as number) > 0, 'a chain id such as 56'),
    address: is<string>(
      (v) => typeof v === 'string' && /^0x[0-9a-fA-F]{40}$/.test(v) && !/^0x0{40}$/.test(v),
      'a 0x address of 40 hex digits, not the zero address',
    ),
    amount: decimal,
  }),
);

/** One line of GET /api/v1/balances: a coin on a network. */
export interface BalanceLine {
  coin: string;
  chain_id: number;
  network: string;
  /** Can be swapped, paid out or withdrawn now. */
  available: string;
  /** Set aside for a swap, payout or withdrawal under way. */
  reserved: string;
  /** Paid by customers, not yet in the treasury (the sweep has not run). */
  pending: string;
}

export type SwapState = 'quoted' | 'pending' | 'completed' | 'failed';

export interface SwapView {
  id: string;
  from: string;
  to: string;
  chain_id: number;
  amount: string;
  /** Units of `to` one unit of `from` buys at the quote, fee not taken. */
  rate: string;
  /** What the balance receives, the fee taken: as quoted, then as done. */
  amount_received: string;
  fee: string;
  /** The least the pool may give before the swap fails and the balance is returned (the quote less the slippage limit). */
  minimum_received: string;
  slippage_bps: number;
  status: SwapState;
  expires_at: string;
  tx_hash: string | null;
  failure: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WithdrawalView {
  id: string;
  coin: string;
  chain_id: number;
  address: string;
  amount: string;
  /** The network's fee charged to the balance beside `amount` (what the wallet receives): "0" where the operator set none. */
  network_fee: string;
  status: 'pending' | 'completed' | 'failed';
  tx_hash: string | null;
  failure: string | null;
  createdAt: string;
  updatedAt: string;
}

const exact = is<string>((v) => typeof v === 'string' && /^\d+(\.\d+)?$/.test(v), 'a decimal amount as text');
const maybeText = nullable<string>((v) => typeof v === 'string', 'text');

/** The answers, as the OpenAPI document and the conformance test read them. */
export const SettlementAnswer = later(() => z.object({ settlement: oneOf(SETTLEMENTS), treasury: z.optional(maybeText) }));
export const Balance = later(() => z.object({ coin: text, chain_id: int, network: text, available: exact, reserved: exact, pending: exact }));
export const Swap = later(() =>
  z.object({
    id: text,
    from: text,
    to: text,
    chain_id: int,
    amount: exact,
    rate: exact,
    amount_received: exact,
    fee: exact,
    minimum_received: exact,
    slippage_bps: int,
    status: oneOf(['quoted', 'pending', 'completed', 'failed']),
    expires_at: timestamp,
    tx_hash: maybeText,
    failure: maybeText,
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);
export const Withdrawal = later(() =>
  z.object({
    id: text,
    coin: text,
    chain_id: int,
    address: text,
    amount: exact,
    network_fee: exact,
    status: oneOf(['pending', 'completed', 'failed']),
    tx_hash: maybeText,
    failure: maybeText,
    createdAt: timestamp,
    updatedAt: timestamp,
  }),
);

const signed = is<string>((v) => typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v), 'a signed decimal amount as text');

/**
 * One line of a balance's statement (GET /api/v1/balances/entries): a movement of the merchant's
 * available or reserved money of a coin, what it refers to, and that figure after it.
 */
export const StatementEntry = later(() =>
  z.object({
    id: text,
    entry: text,
    date: timestamp,
    kind: text,
    refers_to: text,
    memo: text,
    coin: text,
    chain_id: int,
    network: text,
    account: oneOf(['available', 'reserved']),
    amount: signed,
    balance: signed,
  }),
);

/** GET /api/v1/balances/entries: a page of the statement, and the cursor of the next (null on the last). */
export const StatementPage = later(() =>
  z.object({ status: oneOf(['success']), statusCode: int, message: z.optional(text), data: z.array(StatementEntry), ...pageAnswer() }),
);

/** GET /api/v1/swaps, GET /api/v1/withdrawals: a page of the history, newest first. */
export const SwapsPage = later(() =>
  z.object({ status: oneOf(['success']), statusCode: int, message: z.optional(text), data: z.array(Swap), ...pageAnswer() }),
);
export const WithdrawalsPage = later(() =>
  z.object({ status: oneOf(['success']), statusCode: int, message: z.optional(text), data: z.array(Withdrawal), ...pageAnswer() }),
);

/** GET /api/v1/withdrawals/limit: the daily limit (US dollars, across every coin and network, withdrawals and bank payouts together), what left in the last 24 hours and what is left. */
export const WithdrawalLimit = later(() => z.object({ currency: oneOf(['USD']), daily: exact, spent: exact, left: exact, window_hours: int }));

/** GET /api/v1/balances/entries: one coin's (`coin`, and `chain_id` where it is on several), after a cursor (an entry line's id), a page size. */
export const StatementQuery = later(() =>
  z.object({
    coin: z.optional(coinSymbol),
    chain_id: z.optional(is<string>((v) => typeof v === 'string' && /^[1-9]\d{0,15}$/.test(v), 'a chain id such as 56 (in the query)')),
    ...pageQuery(),
  }),
);

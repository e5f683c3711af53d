// A swap quoted as the merchant asks for it: both coins on one chain of its mode whose treasury
// swaps (chain_id names it where the coins are on several), the pool's price asked, and refused
// when it strays from the rate provider's (a thin or moved pool), then the quote kept for
// SWAP_QUOTE_MS. Accepting it is use-cases.ts's acceptQuote.
import type { Address } from 'viem';
import type { CoinSymbol } from '../../contract/fields.ts';
import type { KeyMode } from '../../contract/keys.ts';
import type { Account } from '../domain/account.ts';
import { Conflict, invalidField, NotConfigured } from '../domain/errors.ts';
import type { Catalog } from '../chain/catalog.ts';
import type { SwapProvider } from '../chain/treasury.ts';
import type { RateCache } from '../rates/cache.ts';
import { checkSwapRate, SWAP_QUOTE_MS, SWAP_RATE_LIMIT_BPS, unitsOf, type StoredSwap } from './ledger-rules.ts';
import type { SwapStore } from './swap-store.ts';

/** What a swap quote needs of the service. */
export interface SwapQuoteParts {
  catalog: Pick<Catalog, 'choose' | 'network'>;
  treasury(mode: KeyMode, chainId: number): { swaps?: Pick<SwapProvider, 'quote'> } | undefined;
  rates: Pick<RateCache, 'usdPerCoin'>;
  swaps: Pick<SwapStore, 'quote'>;
  now(): number;
}

/** The quote asked: the coins' symbols, the amount as decimal text of `from`, and the chain where the coins are on several. */
export interface AskedSwap {
  from: string;
  to: string;
  amount: string;
  chainId?: number;
}

export async function quoteSwap(service: SwapQuoteParts, account: Account, asked: AskedSwap): Promise<StoredSwap> {
  if (asked.from === asked.to) throw invalidField('to', `expected another coin than ${asked.from}`);
  const from = service.catalog.choose(account.mode, asked.from, asked.chainId, 'from');
  const to = service.catalog.choose(account.mode, asked.to, from.chainId, 'to');
  const swaps = service.treasury(account.mode, from.chainId)?.swaps;
  if (!swaps) throw new NotConfigured(`Swaps are not available on your ${account.mode} network: its operator has configured no treasury with a swap router`);
  const amountIn = unitsOf('amount', asked.amount, from.decimals);
  const poolOut = await swaps.quote(from.contractAddress as Address, to.contractAddress as Address, amountIn).catch(() => 0n);
  if (poolOut <= 0n) throw new Conflict(`No price for ${asked.from} to ${asked.to}: the pool has no liquidity for it now`);
  // The pool's price against the rate provider's: a thin or moved pool is refused.
  const usd = { from: await service.rates.usdPerCoin(from.symbol as CoinSymbol), to: await service.rates.usdPerCoin(to.symbol as CoinSymbol) };
  checkSwapRate(
    { amountIn, inDecimals: from.decimals, poolOut, outDecimals: to.decimals, from: from.symbol, to: to.symbol },
    usd,
    service.catalog.network(account.mode, from.chainId)?.swapRateLimitBps ?? SWAP_RATE_LIMIT_BPS,
  );
  const nowMs = service.now();
  return service.swaps.quote(
    account,
    {
      chainId: from.chainId,
      fromSymbol: from.symbol,
      toSymbol: to.symbol,
      fromToken: from.contractAddress,
      toToken: to.contractAddress,
      fromDecimals: from.decimals,
      toDecimals: to.decimals,
      amountIn,
      poolOut,
      expiresMs: nowMs + SWAP_QUOTE_MS,
    },
    nowMs,
  );
}

// Money the service holds for a merchant (`balance` settlement): the settlement choice, the
// balances, swaps between coins and withdrawals to a wallet. Secret key only; each key sees
// and moves only its own merchant's balance in its own mode.
import { getAddress, isAddress, type Address } from 'viem';
import { SettlementBody, SwapBody, SwapQuoteBody, WithdrawalBody, type BalanceLine } from '../../contract/balances.ts';
import { formatUnits } from '../../contract/money.ts';
import type { Coin } from '../../contract/schemas.ts';
import type { CoinSymbol } from '../../contract/fields.ts';
import type { Account } from '../domain/account.ts';
import * as moves from '../domain/balances.ts';
import { Conflict, invalidField } from '../domain/errors.ts';
import { SWAP_QUOTE_MS, unitsOf } from '../domain/ledger.ts';
import { readJson } from '../http/body.ts';
import { ok } from '../http/respond.ts';
import { parse } from '../http/validate.ts';
import { swapView, withdrawalView } from '../views/balances.ts';
import type { Handler, ServiceParts } from './context.ts';

/** Refuses what only a balance allows (swaps, bank payouts, withdrawals) to a merchant on `wallet` settlement. */
export async function requireBalance(account: Account, service: ServiceParts, what: string): Promise<void> {
  if ((await service.journal.settlement(account.merchant.id, account.mode)) !== 'balance') {
    throw new Conflict(
      `${what} need balance settlement: your ${account.mode} payments settle to your own wallet, so the service holds no money of yours to ${what === 'Bank payouts' ? 'pay out' : 'use'}. Switch with PUT /api/v1/settlement {"settlement":"balance"} (the operator then holds your money; see the README) and take payments after it`,
    );
  }
}

/** A coin of the mode by symbol and (where it is on several chains) chain_id; refused naming the field. */
const coinOf = (service: ServiceParts, account: Account, field: string, symbol: string, chainId?: number): Coin => service.catalog.choose(account.mode, symbol, chainId, field);

/** The treasury a balance is kept in: the first of the mode's networks that has one (each network keeps its own coins there). */
const treasuryOf = (service: ServiceParts, account: Account) => service.catalog.networks(account.mode).find((n) => n.treasury)?.treasury ?? null;

export const getSettlement: Handler = async ({ account, service }) => {
  const settlement = await service.journal.settlement(account.merchant.id, account.mode);
  return ok(200, { settlement, ...(settlement === 'balance' ? { treasury: treasuryOf(service, account) } : {}) }, 'Settlement');
};

export const putSettlement: Handler = async ({ req, account, service }) => {
  const { settlement } = parse(SettlementBody, await readJson(req));
  if (settlement === 'balance') {
    const networks = service.catalog.networks(account.mode);
    // A balance is money in a treasury whose key the service holds; without one, nowhere to keep
    // it. (Of several networks, payments on one without a treasury are then refused, naming it.)
    if (networks.length > 0 && !networks.some((n) => service.treasury(account.mode, n.chainId))) {
      throw new Conflict(`Balance settlement is not available on ${networks.map((n) => n.name).join(', ')}: its operator has configured no treasury (a "treasury" address in NETWORKS_FILE and its key in TREASURY_KEY_FILE)`, [
        { field: 'settlement', message: 'expected wallet: this network has no treasury' },
      ]);
    }
    if (networks.length === 0 && account.mode === 'live') throw new Conflict('Balance settlement is not available: this service has no live network configured', [{ field: 'settlement', message: 'expected wallet' }]);
  }
  await service.journal.setSettlement(account, settlement, service.now());
  return ok(200, { settlement, ...(settlement === 'balance' ? { treasury: treasuryOf(service, account) } : {}) }, 'Settlement saved; it applies to payments made from now on');
};

export const balances: Handler = async ({ account, service }) => {
  const coins = service.catalog.coins(account.mode);
  const lines: BalanceLine[] = (await service.journal.balances(account, service.now())).map((b) => {
    const coin = coins.find((c) => c.chainId === b.chainId && c.contractAddress.toLowerCase() === b.token);
    const decimals = coin?.decimals ?? 18;
    return {
      coin: coin?.symbol ?? b.token,
      chain_id: b.chainId,
      network: coin?.network ?? service.catalog.network(account.mode, b.chainId)?.name ?? String(b.chainId),
      available: formatUnits(b.available, decimals),
      reserved: formatUnits(b.reserved, decimals),
      pending: formatUnits(b.pending, decimals),
    };
  });
  return ok(200, lines, 'Balances');
};

export const quoteSwap: Handler = async ({ req, account, service }) => {
  await requireBalance(account, service, 'Swaps');
  const body = parse(SwapQuoteBody, await readJson(req));
  if (body.from === body.to) throw invalidField('to', `expected another coin than ${body.from}`);
  // Both coins on one chain, whose treasury swaps: chain_id names it where the coins are on several.
  const from = coinOf(service, account, 'from', body.from, body.chain_id);
  const to = coinOf(service, account, 'to', body.to, from.chainId);
  const swaps = service.treasury(account.mode, from.chainId)?.swaps;
  if (!swaps) throw new Conflict(`Swaps are not available on your ${account.mode} network: its operator has configured no treasury with a swap router`);
  const amountIn = unitsOf('amount', body.amount, from.decimals);
  const poolOut = await swaps.quote(from.contractAddress as Address, to.contractAddress as Address, amountIn).catch(() => 0n);
  if (poolOut <= 0n) throw new Conflict(`No price for ${body.from} to ${body.to}: the pool has no liquidity for it now`);
  const quoted = await service.swaps.quote(
    account,
    { chainId: from.chainId, fromSymbol: from.symbol, toSymbol: to.symbol, fromToken: from.contractAddress, toToken: to.contractAddress, fromDecimals: from.decimals, toDecimals: to.decimals, amountIn, poolOut, expiresMs: service.now() + SWAP_QUOTE_MS },
    service.now(),
  );
  return ok(201, swapView(quoted), 'Swap quoted');
};

export const createSwap: Handler = async ({ req, account, service }) => {
  await requireBalance(account, service, 'Swaps');
  const { quote_id } = parse(SwapBody, await readJson(req));
  const swap = await moves.acceptQuote(service.balanceTransactions, account, quote_id, service.now(), swapView);
  return ok(201, swapView(swap), 'Swap pending');
};

export const getSwap: Handler = async ({ params, account, service }) => ok(200, swapView(await service.swaps.swap(account, params.id)), 'Swap');

export const withdraw: Handler = async ({ req, account, service }) => {
  await requireBalance(account, service, 'Withdrawals');
  const body = parse(WithdrawalBody, await readJson(req));
  const network = service.catalog.network(account.mode, body.chain_id);
  if (!network) {
    const networks = service.catalog.networks(account.mode);
    throw new Conflict(`chain_id ${body.chain_id} is not a network of your ${account.mode} keys`, [{ field: 'chain_id', message: `expected ${networks.length ? networks.map((n) => n.chainId).join(' or ') : 'a configured network'}` }]);
  }
  const treasury = service.treasury(account.mode, network.chainId);
  if (!treasury) throw new Conflict(`Withdrawals are not available on ${network.name}: its operator has configured no treasury`);
  if (body.address.toLowerCase() === treasury.treasury.address.toLowerCase()) throw invalidField('address', 'expected a wallet of yours, not the service\'s treasury');
  if (!isAddress(body.address, { strict: true }) && body.address.slice(2) !== body.address.slice(2).toUpperCase()) {
    throw invalidField('address', `expected a valid EIP-55 checksum (mixed case), or all lower case; did you mean ${getAddress(body.address.toLowerCase())}?`);
  }
  const coin = coinOf(service, account, 'coin', body.coin, network.chainId);
  const amount = unitsOf('amount', body.amount, coin.decimals);
  const withdrawal = await moves.withdraw(
    service.balanceTransactions,
    account,
    { chainId: coin.chainId, symbol: coin.symbol, token: coin.contractAddress, decimals: coin.decimals, address: getAddress(body.address.toLowerCase()), amount, format: (u) => formatUnits(u, coin.decimals), usdPerCoin: await service.rates.usdPerCoin(coin.symbol as CoinSymbol) },
    service.now(),
    withdrawalView,
  );
  return ok(201, withdrawalView(withdrawal), 'Withdrawal pending');
};

export const getWithdrawal: Handler = async ({ params, account, service }) => ok(200, withdrawalView(await service.withdrawals.withdrawal(account, params.id)), 'Withdrawal');

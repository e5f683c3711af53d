import { toUnits } from './money.ts';
import type { Coin } from './schemas.ts';

/** An amount in the coin's base units, exact: refuses what the token cannot represent. */
export function baseUnits(amount: number, coin: Pick<Coin, 'decimals'>): bigint {
  const units = toUnits(amount, coin.decimals);
  if (units === undefined) throw new RangeError(`${amount} is not exact at ${coin.decimals} decimals`);
  return units;
}

/**
 * An EIP-681 token transfer request, the form wallets scan:
 * ethereum:<token>@<chainId>/transfer?address=<to>&uint256=<base units>
 * https://eips.ethereum.org/EIPS/eip-681
 */
export function paymentUri(coin: Pick<Coin, 'contractAddress' | 'chainId' | 'decimals'>, to: string, amount: number): string {
  return paymentUriOfUnits(coin, to, baseUnits(amount, coin));
}

/** The same URI from base units: what the service builds, with no JSON number in between. */
export function paymentUriOfUnits(coin: Pick<Coin, 'contractAddress' | 'chainId'>, to: string, units: bigint): string {
  return `ethereum:${coin.contractAddress}@${coin.chainId}/transfer?address=${to}&uint256=${units}`;
}

// What the service sells with when the operator configures nothing: the built-in coins per
// mode (the sandbox pays them; NETWORKS_FILE replaces them), and a fixed rate table. (No fee:
// the operator's, 0 unless it sets one, is domain/fees.ts.)
import type { KeyMode } from '../../contract/keys.ts';
import type { Currency } from '../../contract/fields.ts';
import type { Coin } from '../../contract/schemas.ts';

/** The network name a key's mode maps to, as the spec's transaction carries it. */
export const NETWORK: Record<KeyMode, string> = { test: 'testnet', live: 'mainnet' };

const token = (n: number) => '0x' + n.toString(16).padStart(40, '0');

export const COINS: Record<KeyMode, Coin[]> = {
  test: [
    { symbol: 'USDT', name: 'Tether USD', network: 'BNB Smart Chain Testnet', chainId: 97, contractAddress: token(0x5da7), decimals: 18, status: 'active' },
    { symbol: 'USDC', name: 'USD Coin', network: 'Ethereum Sepolia', chainId: 11155111, contractAddress: token(0x05dc), decimals: 6, status: 'active' },
    { symbol: 'BUSD', name: 'Binance USD', network: 'BNB Smart Chain Testnet', chainId: 97, contractAddress: token(0xb05d), decimals: 18, status: 'active' },
    { symbol: 'DAI', name: 'Dai', network: 'Ethereum Sepolia', chainId: 11155111, contractAddress: token(0xda1), decimals: 18, status: 'active' },
  ],
  live: [
    {
      symbol: 'USDT',
      name: 'Tether USD',
      network: 'BNB Smart Chain',
      chainId: 56,
      contractAddress: '0x55d398326f99059fF775485246999027B3197955',
      decimals: 18,
      status: 'active',
    },
    {
      symbol: 'USDC',
      name: 'USD Coin',
      network: 'Ethereum',
      chainId: 1,
      contractAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
      decimals: 6,
      status: 'active',
    },
    {
      symbol: 'BUSD',
      name: 'Binance USD',
      network: 'BNB Smart Chain',
      chainId: 56,
      contractAddress: '0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56',
      decimals: 18,
      status: 'inactive',
    },
    {
      symbol: 'DAI',
      name: 'Dai',
      network: 'Ethereum',
      chainId: 1,
      contractAddress: '0x6B175474E89094C44Da98b954EedeAC495271d0F',
      decimals: 18,
      status: 'active',
    },
  ],
};

export const coinOf = (mode: KeyMode, symbol: string): Coin | undefined => COINS[mode].find((c) => c.symbol === symbol);

/** Units of each currency that one US dollar buys. Decimal text: parsed, never floated. */
export const FIAT_PER_USD: Record<Currency, string> = {
  USD: '1',
  EUR: '0.92',
  GBP: '0.79',
  AED: '3.6725',
  NGN: '1550',
};

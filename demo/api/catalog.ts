// What the sandbox sells with: its merchants, the coins per network, and a fixed rate table.
import type { KeyMode } from '../../src/options/keys.ts';
import type { Currency } from '../../src/wire/fields.ts';
import type { Coin } from '../../src/wire/schemas.ts';

export interface Merchant {
  id: string;
  businessName: string;
  businessEmail: string;
  businessLogo: string;
  keys: Record<KeyMode, { publicKey: string; secretKey: string }>;
}

export const DEMO_MERCHANT: Merchant = {
  id: '2b1f6c3e-8d4a-4f7e-9c1b-5a6d7e8f9a0b',
  businessName: 'Harbour Coffee Roasters',
  businessEmail: 'orders@harbour-coffee.example',
  businessLogo: '',
  keys: {
    test: { publicKey: 'pk_test_harbour0demo0key', secretKey: 'sk_test_harbour0demo0secret' },
    live: { publicKey: 'pk_live_harbour0demo0key', secretKey: 'sk_live_harbour0demo0secret' },
  },
};

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
    { symbol: 'USDT', name: 'Tether USD', network: 'BNB Smart Chain', chainId: 56, contractAddress: '0x55d398326f99059fF775485246999027B3197955', decimals: 18, status: 'active' },
    { symbol: 'USDC', name: 'USD Coin', network: 'Ethereum', chainId: 1, contractAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6, status: 'active' },
    { symbol: 'BUSD', name: 'Binance USD', network: 'BNB Smart Chain', chainId: 56, contractAddress: '0xe9e7CEA3DedcA5984780Bafc599bD69ADd087D56', decimals: 18, status: 'inactive' },
    { symbol: 'DAI', name: 'Dai', network: 'Ethereum', chainId: 1, contractAddress: '0x6B175474E89094C44Da98b954EedeAC495271d0F', decimals: 18, status: 'active' },
  ],
};

/** Units of each currency that one US dollar buys. Decimal text: parsed, never floated. */
export const FIAT_PER_USD: Record<Currency, string> = {
  USD: '1',
  EUR: '0.92',
  GBP: '0.79',
  AED: '3.6725',
  NGN: '1550',
};

/** The service's fee, as the original charged it: 1% of the amount. */
export const FEE_PERCENT = 1n;

// An operator points the service at real chains with a file of networks (NETWORKS_FILE):
// checked once at start, every wrong field named.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { isAddress } from 'viem';
import { configFromEnv } from '../../service/config.ts';
import { factoryAddress } from '../deploy.ts';
import { networkList, networksFromFile } from '../config.ts';

const ETH = {
  chainId: 1,
  name: 'Ethereum',
  rpcUrls: ['https://eth-rpc.example/'],
  confirmations: 12,
  factory: '0x' + '1'.repeat(40),
  tokens: [{ symbol: 'USDC', name: 'USD Coin', address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 }],
};
const BSC = {
  chainId: 56,
  name: 'BNB Smart Chain',
  rpcUrls: ['https://bsc-rpc.example/one', 'https://bsc-rpc.example/two'],
  confirmations: 15,
  factory: '0x' + '1'.repeat(40),
  tokens: [{ symbol: 'USDT', name: 'Tether USD', address: '0x55d398326f99059fF775485246999027B3197955', decimals: 18 }],
  explorer: 'https://bscscan.com',
};

function file(content: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'networks-')), 'networks.json');
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

describe('NETWORKS_FILE', () => {
  it('gives each mode its network: RPC URLs to fail over between, confirmations, tokens with their decimals', () => {
    const config = configFromEnv({ NETWORKS_FILE: file({ live: BSC }) });
    expect(config.networks?.live).toMatchObject({ chainId: 56, confirmations: 15, rpcUrls: BSC.rpcUrls });
    expect(config.networks?.test).toBeUndefined();
    expect(configFromEnv({}).networks).toBeUndefined();
  });

  it("takes a list of networks per mode, in the file's order: USDT on BNB Smart Chain and USDC on Ethereum at once", () => {
    const config = configFromEnv({ NETWORKS_FILE: file({ live: [BSC, ETH], test: [{ ...BSC, chainId: 97 }] }) });
    expect(networkList(config.networks?.live).map((n) => [n.chainId, n.tokens.map((t) => t.symbol)])).toEqual([
      [56, ['USDT']],
      [1, ['USDC']],
    ]);
    expect(networkList(config.networks?.test).map((n) => n.chainId)).toEqual([97]);
  });

  it("takes per-network settings: a fee cap for sweeps in gwei, the log range, the reorganisation depth, the chain's finality tag", () => {
    const config = configFromEnv({ NETWORKS_FILE: file({ live: { ...BSC, maxFeeGwei: 3.5, logRange: 500, reorgDepth: 128, finality: 'finalized' } }) });
    expect(config.networks?.live).toMatchObject({ maxFeePerGas: 3_500_000_000n, logRange: 500, reorgDepth: 128, finality: 'finalized' });
    expect(config.networks?.live).not.toHaveProperty('maxFeeGwei');
  });

  it('takes the caps on the gas a relay of signed transfers may cost, in wei as decimal text', () => {
    const config = configFromEnv({ NETWORKS_FILE: file({ live: { ...ETH, relayMaxGasWei: '20000000000000', relayDailyGasWei: '50000000000000000' } }) });
    expect(config.networks?.live).toMatchObject({ relayMaxGasWei: 20_000_000_000_000n, relayDailyGasWei: 50_000_000_000_000_000n });
    expect(() => configFromEnv({ NETWORKS_FILE: file({ live: { ...ETH, relayMaxGasWei: 10_000_000_000_000 } }) })).toThrow(
      /live\.relayMaxGasWei: expected wei/,
    );
    expect(() => configFromEnv({ NETWORKS_FILE: file({ live: { ...ETH, relayDailyGasWei: '0' } }) })).toThrow(/live\.relayDailyGasWei/);
  });

  it("takes the gas wallet's own daily cap across merchants, in wei, and the payments a payer may have relayed a day", () => {
    const config = configFromEnv({ NETWORKS_FILE: file({ live: { ...ETH, relayInstanceDailyGasWei: '200000000000000000', relaysPerPayerPerDay: 3 } }) });
    expect(config.networks?.live).toMatchObject({ relayInstanceDailyGasWei: 200_000_000_000_000_000n, relaysPerPayerPerDay: 3 });
    expect(() => configFromEnv({ NETWORKS_FILE: file({ live: { ...ETH, relayInstanceDailyGasWei: '0' } }) })).toThrow(/live\.relayInstanceDailyGasWei/);
    expect(() => configFromEnv({ NETWORKS_FILE: file({ live: { ...ETH, relaysPerPayerPerDay: 0 } }) })).toThrow(/live\.relaysPerPayerPerDay/);
  });

  it("takes a token's EIP-712 domain for signed transfers (eip3009), and names a malformed one", () => {
    const signing = { ...ETH, tokens: [{ ...ETH.tokens[0]!, eip3009: { name: 'USD Coin', version: '2' } }] };
    expect(configFromEnv({ NETWORKS_FILE: file({ live: signing }) }).networks?.live).toMatchObject({
      tokens: [{ eip3009: { name: 'USD Coin', version: '2' } }],
    });
    expect(() =>
      configFromEnv({ NETWORKS_FILE: file({ live: { ...ETH, tokens: [{ ...ETH.tokens[0]!, eip3009: { name: 'USD Coin', version: 2 } }] } }) }),
    ).toThrow(/live\.tokens\.0\.eip3009\.version/);
    expect(() => configFromEnv({ NETWORKS_FILE: file({ live: { ...ETH, tokens: [{ ...ETH.tokens[0]!, eip3009: { version: '2' } }] } }) })).toThrow(
      /live\.tokens\.0\.eip3009\.name/,
    );
  });

  it("takes the payout partner's deposit address and when what it is owed is sent", () => {
    const partner = { payoutPartner: '0x' + '2'.repeat(40), partnerMinimum: '250.5', partnerMaxWaitMinutes: 1440 };
    expect(configFromEnv({ NETWORKS_FILE: file({ live: { ...BSC, ...partner } }) }).networks?.live).toMatchObject(partner);
  });

  it.each([
    [{ live: { ...BSC, rpcUrls: [] } }, /live\.rpcUrls: expected at least one RPC URL/],
    [{ live: { ...BSC, rpcUrls: ['ftp://x'] } }, /live\.rpcUrls\.0: expected an http\(s\) URL/],
    [{ live: { ...BSC, factory: '0x12' } }, /live\.factory/],
    [{ live: { ...BSC, tokens: [{ ...BSC.tokens[0], decimals: 40 }] } }, /live\.tokens\.0\.decimals/],
    [{ live: { ...BSC, tokens: [{ ...BSC.tokens[0], symbol: 'XRP' }] } }, /live\.tokens\.0\.symbol/],
    [{ live: { ...BSC, dev: true } }, /a live network is never a dev chain/],
    [{ live: BSC, test: BSC }, /test.chainId: test keys need a chain of their own/],
    ['{ not json', /cannot read .* as JSON/],
    [{ live: { ...BSC, maxFeeGwei: 0 } }, /live\.maxFeeGwei: expected gwei per gas/],
    [{ live: { ...BSC, maxFeeGwei: '5' } }, /live\.maxFeeGwei/],
    [{ live: { ...BSC, logRange: 0 } }, /live\.logRange: expected a whole number from 1 to 100000/],
    [{ live: { ...BSC, reorgDepth: 2.5 } }, /live\.reorgDepth/],
    [{ live: { ...BSC, finality: 'latest' } }, /live\.finality: expected "safe" or "finalized"/],
    [{ live: { ...BSC, payoutPartner: '0x12' } }, /live\.payoutPartner: expected a 0x address/],
    [{ live: { ...BSC, partnerMinimum: 1000 } }, /live\.partnerMinimum: expected whole USDT/],
    [{ live: { ...BSC, partnerMaxWaitMinutes: 0 } }, /live\.partnerMaxWaitMinutes: expected a whole number/],
    [
      { live: { ...BSC, treasury: '0x' + '3'.repeat(40), payoutPartner: '0x' + '3'.repeat(40) } },
      /live\.payoutPartner: expected the payout partner's own deposit address, not the treasury/,
    ],
    // The list form names each network by its place in the list.
    [{ live: [BSC, { ...ETH, confirmations: 0 }] }, /live\.1\.confirmations: expected a whole number from 1 to 1000/],
    [{ live: [BSC, { ...ETH, dev: true }] }, /live\.1\.dev: a live network is never a dev chain/],
    [{ live: [] }, /live: expected at least one network/],
    [{ live: [BSC, { ...ETH, chainId: 56 }] }, /live\.1\.chainId: chain 56 is already live\.0; list each chain once/],
    [{ live: [ETH, BSC], test: [{ ...BSC, chainId: 97 }, BSC] }, /test\.1\.chainId: test keys need a chain of their own \(a testnet\), not the live chain 56/],
    [
      { live: [ETH, { ...BSC, treasury: '0x' + '3'.repeat(40), payoutPartner: '0x' + '3'.repeat(40) }] },
      /live\.1\.payoutPartner: expected the payout partner's own deposit address, not the treasury/,
    ],
  ])('refuses %j, naming what is wrong', (content, message) => {
    expect(() => configFromEnv({ NETWORKS_FILE: file(content) })).toThrow(message);
  });
});

describe('examples/networks', () => {
  const dir = new URL('../../../examples/networks/', import.meta.url);
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

  it('has a file for each chain the README names, each with a live network and a testnet', () => {
    expect(files.sort()).toEqual(['arbitrum.json', 'base.json', 'bnb-smart-chain.json', 'ethereum.json', 'polygon.json', 'several-chains.json']);
  });

  it.each(files)('%s is a network file the service takes, on the factory this tree deploys, with checksummed addresses', (file) => {
    const networks = networksFromFile(new URL(file, dir).pathname);
    expect(Array.isArray(networks.live) && Array.isArray(networks.test), 'the list form, a live network and a testnet').toBe(true);
    for (const network of [...networkList(networks.live), ...networkList(networks.test)]) {
      expect(network.chainId).toBeGreaterThan(0);
      expect(network.factory).toBe(factoryAddress()); // the contract changed: deploy, and update the examples
      for (const token of network.tokens) expect(isAddress(token.address, { strict: true }), `${file} ${network.name} ${token.symbol}`).toBe(true);
      expect(network.confirmations).toBeGreaterThanOrEqual(3);
    }
  });
});

describe('GAS_WALLET_KEY', () => {
  it("takes the gas wallet's private key, and refuses a malformed one without repeating it", () => {
    const key = `0x${'ab'.repeat(32)}`;
    expect(configFromEnv({ GAS_WALLET_KEY: key }).gasKey).toBe(key);
    expect(configFromEnv({}).gasKey).toBeUndefined();
    const almost = `0x${'cd'.repeat(31)}`;
    expect(() => configFromEnv({ GAS_WALLET_KEY: almost })).toThrow(/GAS_WALLET_KEY: expected a private key/);
    expect(() => configFromEnv({ GAS_WALLET_KEY: almost })).not.toThrow(new RegExp(almost.slice(2)));
  });
});

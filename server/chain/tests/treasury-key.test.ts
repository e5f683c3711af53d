// The treasury of balance settlement: its address in the network file, its key in a file of
// its own (TREASURY_KEY_FILE or the network's treasuryKeyFile), checked against the address,
// and never shown in an error, a log or an answer.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { privateKeyToAccount } from 'viem/accounts';
import { configFromEnv } from '../../service/config.ts';
import { treasuryAccount } from '../treasury.ts';
import type { Network } from '../networks.ts';

const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const OTHER = '0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba';
const address = privateKeyToAccount(KEY).address;
const dir = mkdtempSync(join(tmpdir(), 'treasury-'));
const keyFile = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content, { mode: 0o600 });
  return path;
};
const network: Network = {
  chainId: 97,
  name: 'BNB Smart Chain Testnet',
  rpcUrls: ['https://rpc.example'],
  confirmations: 3,
  factory: `0x${'1'.repeat(40)}`,
  tokens: [],
  treasury: address,
};

describe('the treasury key', () => {
  it("is read from TREASURY_KEY_FILE (the environment holds the path only) and must be the network's treasury", () => {
    const config = configFromEnv({ TREASURY_KEY_FILE: keyFile('key', `${KEY}\n`) });
    expect(config.treasuryKeyFile).toBe(join(dir, 'key'));
    expect(treasuryAccount(network, config.treasuryKeyFile, undefined)?.address).toBe(address);
    // A network's own file wins over the shared one.
    expect(treasuryAccount({ ...network, treasuryKeyFile: keyFile('own', KEY.slice(2)) }, keyFile('shared', OTHER), undefined)?.address).toBe(address);
  });

  it("is refused, never shown, when it is another account's, not a key, or not there", () => {
    const errors = [
      () => treasuryAccount(network, keyFile('other', OTHER), undefined),
      () => treasuryAccount(network, keyFile('junk', `${KEY.slice(0, 40)}`), undefined),
      () => treasuryAccount(network, join(dir, 'missing'), undefined),
    ].map((f) => {
      try {
        f();
        return 'no error';
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(errors[0]).toMatch(/is not the network's treasury/);
    expect(errors[1]).toMatch(/does not hold a private key/);
    expect(errors[2]).toMatch(/cannot read .*missing \(ENOENT\)/);
    for (const message of errors) {
      expect(message).not.toContain(KEY.slice(2, 20));
      expect(message).not.toContain(OTHER.slice(2, 20));
    }
  });

  it('is none without a treasury, and a dev account only on a dev chain', () => {
    const dev = privateKeyToAccount(KEY);
    expect(treasuryAccount({ ...network, treasury: undefined }, keyFile('k2', KEY), undefined)).toBeUndefined();
    expect(treasuryAccount(network, undefined, dev)).toBeUndefined(); // not a dev chain: no dev powers
    expect(treasuryAccount({ ...network, dev: true }, undefined, dev)?.address).toBe(address);
  });

  it('takes the treasury, its key file and a swap router from NETWORKS_FILE, naming a wrong one', () => {
    const path = join(dir, 'networks.json');
    const live = { chainId: 56, name: 'BNB Smart Chain', rpcUrls: ['https://bsc.example'], confirmations: 15, factory: `0x${'1'.repeat(40)}`, tokens: [] };
    writeFileSync(
      path,
      JSON.stringify({
        live: { ...live, treasury: address, treasuryKeyFile: '/etc/service/treasury.key', swapRouter: '0x10ED43C718714eb63d5aA57B78B54704E256024E' },
      }),
    );
    expect(configFromEnv({ NETWORKS_FILE: path }).networks?.live).toMatchObject({
      treasury: address,
      treasuryKeyFile: '/etc/service/treasury.key',
      swapRouter: '0x10ED43C718714eb63d5aA57B78B54704E256024E',
    });
    writeFileSync(path, JSON.stringify({ live: { ...live, treasury: '0x123' } }));
    expect(() => configFromEnv({ NETWORKS_FILE: path })).toThrow(/live\.treasury: expected a 0x address of 40 hex digits/);
  });
});

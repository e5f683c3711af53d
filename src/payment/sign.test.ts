// @vitest-environment happy-dom
// Paying with one signature: the typed data the checkout hands a wallet is EIP-3009's
// TransferWithAuthorization in the token's own EIP-712 domain. A viem account signs the JSON as
// a wallet reads it, and the signature is checked against the types and domain written here
// from EIP-3009 and EIP-712 (not from the checkout's code), as the relay checks them.
import { privateKeyToAccount } from 'viem/accounts';
import { recoverTypedDataAddress, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import type { Coin } from '../../contract/schemas.ts';
import type { Eip1193 } from '../../contract/wallet.ts';
import { holder, nonce, signTransfer, typedData } from './sign.ts';

const account = privateKeyToAccount(`0x${'59'.repeat(32)}`);
const usdc: Coin = {
  symbol: 'USDC',
  name: 'USD Coin',
  network: 'Local dev chain',
  chainId: 31337,
  contractAddress: '0x5FbDB2315678afecb367f032d93F642f64180aa3',
  decimals: 6,
  status: 'active',
  signs: { name: 'USD Coin', version: '2' },
};
const deposit = '0x00000000000000000000000000000000000d3905';

/** EIP-3009's struct, as its text gives it. */
const EIP3009 = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;
const DOMAIN = { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: usdc.contractAddress as Hex };

/**
 * A wallet whose account is `account`, on `chain`, holding `balance` of any token: it signs
 * eth_signTypedData_v4 from the JSON it is given, as a wallet does, and records every request.
 */
function wallet({ chain = 31337, balance = 0n, accounts = [account.address] as string[] } = {}) {
  const requests: Array<{ method: string; params?: unknown[] }> = [];
  const provider: Eip1193 = {
    async request(args) {
      requests.push(args);
      switch (args.method) {
        case 'eth_accounts':
        case 'eth_requestAccounts':
          return accounts;
        case 'eth_chainId':
          return `0x${chain.toString(16)}`;
        case 'wallet_switchEthereumChain':
          chain = 31337;
          return null;
        case 'eth_call':
          return `0x${balance.toString(16).padStart(64, '0')}`;
        case 'eth_signTypedData_v4': {
          const [from, json] = args.params as [string, string];
          expect(from).toBe(account.address);
          const data = JSON.parse(json);
          const { EIP712Domain, ...types } = data.types;
          expect(EIP712Domain.map((f: { name: string }) => f.name)).toEqual(['name', 'version', 'chainId', 'verifyingContract']);
          return account.signTypedData({ domain: data.domain, types, primaryType: data.primaryType, message: data.message });
        }
      }
      throw new Error(`unexpected ${args.method}`);
    },
  };
  return { provider, requests, methods: () => requests.map((r) => r.method) };
}

describe('the TransferWithAuthorization the checkout asks a wallet to sign', () => {
  it("is EIP-3009's struct in the token's own domain, with the amount and times as decimal text", () => {
    const a = { from: account.address, to: deposit, value: '24745000', validAfter: '0', validBefore: '1800000000', nonce: `0x${'07'.repeat(32)}` };
    const data = JSON.parse(JSON.stringify(typedData(usdc, a)));
    expect(data).toEqual({
      types: {
        EIP712Domain: [
          { name: 'name', type: 'string' },
          { name: 'version', type: 'string' },
          { name: 'chainId', type: 'uint256' },
          { name: 'verifyingContract', type: 'address' },
        ],
        ...EIP3009,
      },
      domain: DOMAIN,
      primaryType: 'TransferWithAuthorization',
      message: a,
    });
  });

  it('a nonce is 32 random bytes, new each time', () => {
    const nonces = new Set(Array.from({ length: 20 }, nonce));
    expect(nonces.size).toBe(20);
    for (const n of nonces) expect(n).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it('signTransfer: the wallet signs what is due to the deposit address until the quote ends, and the signature recovers to the payer in the real domain', async () => {
    const w = wallet({ chain: 1 });
    const body = await signTransfer(w.provider, usdc, deposit, 24_745_000n, 1_800_000_000);
    // Connected, then moved to the coin's chain, then asked to sign: a wallet signs an EIP-712 domain only on its chain.
    expect(w.methods()).toEqual(['eth_requestAccounts', 'eth_chainId', 'wallet_switchEthereumChain', 'eth_signTypedData_v4']);
    expect(body).toMatchObject({
      chain_id: 31337,
      authorization: { from: account.address, to: deposit, value: '24745000', validAfter: '0', validBefore: '1800000000' },
    });
    const { authorization: a } = body;
    const signer = await recoverTypedDataAddress({
      domain: DOMAIN,
      types: EIP3009,
      primaryType: 'TransferWithAuthorization',
      message: {
        from: a.from,
        to: a.to,
        value: BigInt(a.value),
        validAfter: BigInt(a.validAfter),
        validBefore: BigInt(a.validBefore),
        nonce: a.nonce,
      },
      signature: body.signature,
    });
    expect(signer).toBe(account.address);
    // Another domain (USDC's version "1", another chain) would not recover it.
    for (const wrong of [
      { ...DOMAIN, version: '1' },
      { ...DOMAIN, chainId: 1 },
    ]) {
      const other = await recoverTypedDataAddress({
        domain: wrong,
        types: EIP3009,
        primaryType: 'TransferWithAuthorization',
        message: { ...a, value: BigInt(a.value), validAfter: 0n, validBefore: BigInt(a.validBefore) },
        signature: body.signature,
      });
      expect(other).not.toBe(account.address);
    }
  });

  it('holder: a connected wallet on the chain holding what is due may sign; asked without a prompt', async () => {
    const enough = wallet({ balance: 24_745_000n });
    expect(await holder(enough.provider, usdc, 24_745_000n)).toBe(account.address);
    const [call] = enough.requests.find((r) => r.method === 'eth_call')!.params as [{ to: string; data: string }];
    expect(call).toEqual({ to: usdc.contractAddress, data: `0x70a08231${account.address.slice(2).padStart(64, '0')}` });
    // Too little, another chain (not asked there), not connected (never prompted).
    expect(await holder(wallet({ balance: 24_744_999n }).provider, usdc, 24_745_000n)).toBeUndefined();
    const elsewhere = wallet({ chain: 1, balance: 10n ** 12n });
    expect(await holder(elsewhere.provider, usdc, 1n)).toBeUndefined();
    expect(elsewhere.methods()).toEqual(['eth_accounts', 'eth_chainId']);
    const stranger = wallet({ accounts: [], balance: 10n ** 12n });
    expect(await holder(stranger.provider, usdc, 1n)).toBeUndefined();
    expect(stranger.methods()).toEqual(['eth_accounts']);
  });
});

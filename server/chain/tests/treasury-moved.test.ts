// What a treasury send's receipt says moved (Treasury.moved): a send is done only when the token
// moved its amount. A token flagged `feeOnTransfer` logs what arrives, and its fee apart (as
// Tether's contract does with its fee switched on) or not at all (burnt): once some arrived, the
// amount left the treasury and the send is done. Receipts as a node gives them, logs encoded with viem.
import { describe, expect, it } from 'vitest';
import { encodeAbiParameters, encodeEventTopics, erc20Abi, type Address, type Hex, type TransactionReceipt } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { Treasury } from '../treasury.ts';
import type { Network } from '../networks.ts';

const account = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');
const plain = '0x1000000000000000000000000000000000000001' as Address;
const withFee = '0x2000000000000000000000000000000000000002' as Address;
const customer = '0x3000000000000000000000000000000000000003' as Address;
const feeCollector = '0x0000000000000000000000000000000000000fee' as Address;

const network: Network = {
  chainId: 1,
  name: 'Stand-in',
  rpcUrls: ['http://127.0.0.1:9'],
  confirmations: 2,
  factory: '0x4000000000000000000000000000000000000004',
  treasury: account.address,
  tokens: [
    { symbol: 'USDC', name: 'USD Coin', address: plain, decimals: 6 },
    { symbol: 'USDT', name: 'Tether USD', address: withFee, decimals: 6, feeOnTransfer: true },
  ],
};
const treasury = new Treasury(network, account);

const transfer = (token: Address, from: Address, to: Address, value: bigint) => ({
  address: token,
  topics: encodeEventTopics({ abi: erc20Abi, eventName: 'Transfer', args: { from, to } }) as [Hex, ...Hex[]],
  data: encodeAbiParameters([{ type: 'uint256' }], [value]),
  blockHash: `0x${'11'.repeat(32)}` as Hex,
  blockNumber: 1n,
  logIndex: 0,
  transactionHash: `0x${'22'.repeat(32)}` as Hex,
  transactionIndex: 0,
  removed: false,
});
const receipt = (...logs: ReturnType<typeof transfer>[]) => ({ status: 'success', logs }) as unknown as TransactionReceipt;

describe('what a treasury send moved', () => {
  it('is its Transfer logs from the treasury to the destination: none when the token answered false, only what reached it', () => {
    expect(treasury.moved(receipt(), plain, customer)).toBe(0n);
    expect(treasury.moved(receipt(transfer(plain, account.address, customer, 10n)), plain, customer)).toBe(10n);
    // Another token's log, another sender's, another destination's: none of them counts.
    expect(
      treasury.moved(
        receipt(
          transfer(withFee, account.address, customer, 10n),
          transfer(plain, customer, customer, 10n),
          transfer(plain, account.address, feeCollector, 10n),
        ),
        plain,
        customer,
      ),
    ).toBe(0n);
  });

  it('of a token flagged feeOnTransfer, once some reached the destination, is what it was asked to move (its fee logged apart or burnt)', () => {
    // 10 sent: 9.9 arrives, 0.1 to the token's fee collector, each its own Transfer.
    const sent = receipt(transfer(withFee, account.address, customer, 9_900_000n), transfer(withFee, account.address, feeCollector, 100_000n));
    expect(treasury.moved(sent, withFee, customer, 10_000_000n)).toBe(10_000_000n);
    // One that burns its fee and logs only what arrives: it moved what it was asked to, once some arrived.
    const burnt = receipt(transfer(withFee, account.address, customer, 9_900_000n));
    expect(treasury.moved(burnt, withFee, customer, 10_000_000n)).toBe(10_000_000n);
    // Unflagged, the same logs are what reached the destination only: less than sent, so the send is not done.
    expect(treasury.moved(sent, plain, customer)).toBe(0n);
    const unflagged = receipt(transfer(plain, account.address, customer, 9_900_000n), transfer(plain, account.address, feeCollector, 100_000n));
    expect(treasury.moved(unflagged, plain, customer)).toBe(9_900_000n);
    // Flagged or not, nothing reached the destination: nothing moved to it.
    expect(treasury.moved(receipt(transfer(withFee, account.address, feeCollector, 10_000_000n)), withFee, customer, 10_000_000n)).toBe(0n);
    expect(treasury.moved(receipt(), withFee, customer, 10_000_000n)).toBe(0n);
  });
});

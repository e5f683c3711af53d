// The deposit contract on a real local EVM node (anvil): an address receives before anything
// is deployed there, a sweep sends everything to the payout address and nowhere else, and a
// second sweep is harmless. Also: the committed bytecode is what the Solidity source compiles to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  getAddress,
  http,
  keccak256,
  parseEther,
  parseEventLogs,
  parseUnits,
  toHex,
  type Address,
  type Hex,
} from 'viem';
import { foundry } from 'viem/chains';
import * as artifacts from './artifacts.generated.ts';
import { compileContracts } from './compile.ts';
import { devAccount, type DevContracts } from '../devchain/deploy.ts';
import type { DevChain } from '../devchain/anvil.ts';
import { sharedDevChain } from '../devchain/shared.ts';
import { create2Addresses, implementationOf } from '../server/chain/networks.ts';
import { sweepGasLimit } from '../server/chain/sweeper.ts';

const { Deposit, DepositFactory, Hostile, TestToken } = artifacts;
let chain: DevChain;
let contracts: DevContracts;
let reader: ReturnType<typeof createPublicClient>;
const customer = devAccount(1);
const payout = devAccount(2).address;
const stranger = devAccount(3);

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
  reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
}, 60_000);
afterAll(() => chain?.stop());

const wallet = (account = customer) => createWalletClient({ account, chain: foundry, transport: http(chain.url) });
const balance = (token: Address, owner: Address) => reader.readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [owner] });
const mined = (hash: `0x${string}`) => reader.waitForTransactionReceipt({ hash, pollingInterval: 50 });
const salt = (n: number) => keccak256(toHex(`m/test/payment-${n}`));

/** The deposit address, computed off-chain exactly as the service computes it (salt = keccak of merchant/mode/reference). */
const depositAddress = (owner: Address, n: number) =>
  create2Addresses(contracts.factory).addressFor({ merchantId: 'm', mode: 'test', reference: `payment-${n}`, payout: owner });

async function pay(to: Address, amount: string, symbol: 'USDT' | 'USDC' = 'USDT') {
  const decimals = symbol === 'USDC' ? 6 : 18;
  await mined(
    await wallet().writeContract({ address: contracts.tokens[symbol], abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits(amount, decimals)] }),
  );
}

async function sweep(targets: Array<{ payout: Address; salt: `0x${string}`; token: Address }>, by = stranger) {
  return mined(await wallet(by).writeContract({ address: contracts.factory, abi: DepositFactory.abi, functionName: 'sweep', args: [targets] }));
}

describe('the deposit contract', { timeout: 60_000 }, () => {
  it('is compiled from its source: the committed bytecode is what solc makes of contracts/*.sol', () => {
    const fresh = compileContracts();
    for (const name of ['Deposit', 'DepositFactory', 'Hostile', 'TestToken', 'UsdcTestToken', 'DaiTestToken', 'TestWallet'] as const) {
      expect(fresh[name]!.bytecode).toBe(artifacts[name].bytecode);
      expect(fresh[name]!.abi).toEqual(artifacts[name].abi);
    }
  });

  it('gives each payment its own address, computed off-chain as the factory computes it', async () => {
    const a = depositAddress(payout, 1);
    expect(await reader.readContract({ address: contracts.factory, abi: DepositFactory.abi, functionName: 'addressOf', args: [payout, salt(1)] })).toBe(a);
    expect(depositAddress(payout, 2)).not.toBe(a);
    // The payout address is part of the deposit address: another payout, another address.
    expect(depositAddress(stranger.address, 1)).not.toBe(a);
    // Kept per factory and payout address (server/chain/networks.ts): the factory's answer for
    // each payout in turn, however the payout address is spelled.
    expect(
      await reader.readContract({ address: contracts.factory, abi: DepositFactory.abi, functionName: 'addressOf', args: [stranger.address, salt(1)] }),
    ).toBe(depositAddress(stranger.address, 1));
    expect(depositAddress(payout.toLowerCase() as Address, 1)).toBe(a);
  });

  it('receives a plain ERC-20 transfer before anything is deployed there', async () => {
    const deposit = depositAddress(payout, 10);
    await pay(deposit, '24.745');
    expect(await balance(contracts.tokens.USDT, deposit)).toBe(parseUnits('24.745', 18));
    expect(await reader.getCode({ address: deposit })).toBeUndefined();
  });

  it('sweeps everything to the payout address, whoever calls it; a second sweep is harmless, a third takes what came since', async () => {
    const deposit = depositAddress(payout, 20);
    await pay(deposit, '10');
    await pay(deposit, '5', 'USDC');
    const before = await balance(contracts.tokens.USDT, payout);
    const beforeUsdc = await balance(contracts.tokens.USDC, payout);
    const receipt = await sweep([
      { payout, salt: salt(20), token: contracts.tokens.USDT },
      { payout, salt: salt(20), token: contracts.tokens.USDC },
    ]);
    expect(receipt.status).toBe('success');
    expect(await balance(contracts.tokens.USDT, deposit)).toBe(0n);
    expect(await balance(contracts.tokens.USDT, payout)).toBe(before + parseUnits('10', 18));
    expect(await balance(contracts.tokens.USDC, payout)).toBe(beforeUsdc + parseUnits('5', 6));
    expect(await reader.getCode({ address: deposit })).toBeDefined();

    const again = await sweep([{ payout, salt: salt(20), token: contracts.tokens.USDT }]);
    expect(again.status).toBe('success');
    expect(await balance(contracts.tokens.USDT, payout)).toBe(before + parseUnits('10', 18));

    await pay(deposit, '1.5');
    await sweep([{ payout, salt: salt(20), token: contracts.tokens.USDT }]);
    expect(await balance(contracts.tokens.USDT, payout)).toBe(before + parseUnits('11.5', 18));
  });

  it('cannot send a deposit anywhere but its payout address', async () => {
    const deposit = depositAddress(payout, 30);
    await pay(deposit, '7');
    // Naming another payout with the same salt reaches another (empty) address, not this one.
    await sweep([{ payout: stranger.address, salt: salt(30), token: contracts.tokens.USDT }]);
    expect(await balance(contracts.tokens.USDT, deposit)).toBe(parseUnits('7', 18));
    expect(await balance(contracts.tokens.USDT, stranger.address)).toBe(parseUnits('1000000', 18));
    // The deposit itself has one way out, and its payout is fixed.
    expect(
      Deposit.abi
        .filter((item) => item.type === 'function')
        .map((item) => item.name)
        .sort(),
    ).toEqual(['fee', 'payout', 'sweep']);
    await sweep([{ payout, salt: salt(30), token: contracts.tokens.USDT }]);
    expect(await reader.readContract({ address: deposit, abi: Deposit.abi, functionName: 'payout' })).toBe(payout);
    // A stranger calling the deployed deposit directly still pays the payout address.
    await pay(deposit, '2');
    const before = await balance(contracts.tokens.USDT, payout);
    await mined(await wallet(stranger).writeContract({ address: deposit, abi: Deposit.abi, functionName: 'sweep', args: [contracts.tokens.USDT] }));
    expect(await balance(contracts.tokens.USDT, payout)).toBe(before + parseUnits('2', 18));
    expect(await balance(contracts.tokens.USDT, stranger.address)).toBe(parseUnits('1000000', 18));
  });

  it("is a minimal proxy: the deposit code is the factory's first creation, and the deposit code itself holds nothing", async () => {
    const implementation = await reader.readContract({ address: contracts.factory, abi: DepositFactory.abi, functionName: 'implementation' });
    expect(implementation).toBe(implementationOf(contracts.factory));
    const deposit = depositAddress(payout, 40);
    await pay(deposit, '1');
    await sweep([{ payout, salt: salt(40), token: contracts.tokens.USDT }]);
    // 45 bytes of EIP-1167 proxy and the 20-byte payout address: nothing else is deployed per payment.
    expect(((await reader.getCode({ address: deposit }))!.length - 2) / 2).toBe(65);
    // The deposit code cannot be used as a deposit: it has no payout address of its own.
    await expect(reader.readContract({ address: implementation, abi: Deposit.abi, functionName: 'payout' })).rejects.toThrow(/not a deposit/);
  });

  it('sweeps one batch past a deposit its token refuses: the others move, the refused one is named by SweepFailed', async () => {
    const [a, b, c] = [50, 51, 52].map((n) => depositAddress(payout, n)) as [Address, Address, Address];
    for (const d of [a, b, c]) await pay(d, '3');
    // Freeze b's address in the token, as USDT and USDC blacklist addresses.
    await mined(await wallet(stranger).writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'freeze', args: [b] }));
    const before = await balance(contracts.tokens.USDT, payout);
    const receipt = await sweep([50, 51, 52].map((n) => ({ payout, salt: salt(n), token: contracts.tokens.USDT })));
    expect(receipt.status).toBe('success');
    expect(await balance(contracts.tokens.USDT, payout)).toBe(before + parseUnits('6', 18));
    expect(await balance(contracts.tokens.USDT, b)).toBe(parseUnits('3', 18));
    const failed = parseEventLogs({ abi: DepositFactory.abi, eventName: 'SweepFailed', logs: receipt.logs });
    expect(failed.map((f) => [f.args.deposit, f.args.token])).toEqual([[b, getAddress(contracts.tokens.USDT)]]);
    expect(
      decodeErrorResult({ abi: [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }], data: failed[0]!.args.reason as Hex })
        .args[0],
    ).toBe('frozen');
    expect(parseEventLogs({ abi: DepositFactory.abi, eventName: 'Swept', logs: receipt.logs }).map((e) => e.args.deposit)).toEqual([a, c]);
  });

  it('sweeps the native coin, sent before or after the deposit exists, and a token no network lists', async () => {
    const deposit = depositAddress(payout, 60);
    await mined(await wallet().sendTransaction({ to: deposit, value: parseEther('0.5') }));
    const unlisted = (
      await reader.waitForTransactionReceipt({
        hash: await wallet().deployContract({ abi: TestToken.abi, bytecode: TestToken.bytecode, args: ['Unlisted', 'UNL', 8] }),
      })
    ).contractAddress!;
    await mined(await wallet().writeContract({ address: unlisted, abi: TestToken.abi, functionName: 'mint', args: [deposit, 12_345n] }));
    const nativeBefore = await reader.getBalance({ address: payout });
    await sweep([
      { payout, salt: salt(60), token: '0x0000000000000000000000000000000000000000' },
      { payout, salt: salt(60), token: unlisted },
    ]);
    expect(await reader.getBalance({ address: payout })).toBe(nativeBefore + parseEther('0.5'));
    expect(await balance(unlisted, payout)).toBe(12_345n);
    // Deployed now: a plain transfer of the native coin is still accepted, and swept again.
    await mined(await wallet().sendTransaction({ to: deposit, value: parseEther('0.25') }));
    expect(await reader.getBalance({ address: deposit })).toBe(parseEther('0.25'));
    await sweep([{ payout, salt: salt(60), token: '0x0000000000000000000000000000000000000000' }]);
    expect(await reader.getBalance({ address: payout })).toBe(nativeBefore + parseEther('0.75'));
    expect(await reader.getBalance({ address: deposit })).toBe(0n);
  });

  it('costs little gas: a sweep that deploys the deposit under 100k, a later one under 60k (21k of each is the base cost of any transaction)', async () => {
    const deposit = depositAddress(payout, 70);
    await pay(deposit, '4');
    const first = await sweep([{ payout, salt: salt(70), token: contracts.tokens.USDT }]);
    await pay(deposit, '4');
    const later = await sweep([{ payout, salt: salt(70), token: contracts.tokens.USDT }]);
    expect(first.gasUsed).toBeLessThan(100_000n);
    expect(later.gasUsed).toBeLessThan(60_000n);
    console.log(`one deposit's first sweep: ${first.gasUsed} gas, a later one: ${later.gasUsed}`);
  });

  describe('a hostile target (issue 33 item 10)', () => {
    const hostile = async (revertBytes: bigint) =>
      (await reader.waitForTransactionReceipt({ hash: await wallet().deployContract({ abi: Hostile.abi, bytecode: Hostile.bytecode, args: [revertBytes] }) }))
        .contractAddress!;
    const sweepWith = async (targets: Array<{ payout: Address; salt: Hex; token: Address }>, gas: bigint) =>
      mined(await wallet(stranger).writeContract({ address: contracts.factory, abi: DepositFactory.abi, functionName: 'sweep', args: [targets], gas }));

    it('that burns all the gas it is given fails alone: the batch around it is swept, at a bounded cost', async () => {
      const burner = await hostile(0n);
      const [a, c] = [80, 82].map((n) => depositAddress(payout, n)) as [Address, Address];
      await pay(a, '2');
      await pay(c, '3');
      const before = await balance(contracts.tokens.USDT, payout);
      // A million gas: before the cap, the burner took 63/64 of it and the batch ran out after it.
      const receipt = await sweepWith(
        [
          { payout, salt: salt(80), token: contracts.tokens.USDT },
          { payout, salt: salt(81), token: burner },
          { payout, salt: salt(82), token: contracts.tokens.USDT },
        ],
        1_000_000n,
      );
      expect(receipt.status).toBe('success');
      expect(await balance(contracts.tokens.USDT, payout)).toBe(before + parseUnits('5', 18));
      const failed = parseEventLogs({ abi: DepositFactory.abi, eventName: 'SweepFailed', logs: receipt.logs });
      expect(failed.map((f) => f.args.token)).toEqual([getAddress(burner)]);
      // Three deposits deployed, one of them given its 150k and failing: under the sweeper's ceiling for three.
      expect(receipt.gasUsed).toBeLessThan(sweepGasLimit(10n ** 9n, 3));
      console.log(`a batch of 3 (first sweeps) with a gas-burning target: ${receipt.gasUsed} gas`);
    });

    it('whose revert data is huge is named by at most 256 bytes of it, and costs the batch no more', async () => {
      const huge = await hostile(100_000n);
      const d = depositAddress(payout, 91);
      await pay(d, '1');
      const receipt = await sweepWith(
        [
          { payout, salt: salt(90), token: huge },
          { payout, salt: salt(91), token: contracts.tokens.USDT },
        ],
        3_000_000n,
      );
      expect(receipt.status).toBe('success');
      const failed = parseEventLogs({ abi: DepositFactory.abi, eventName: 'SweepFailed', logs: receipt.logs });
      expect(failed).toHaveLength(1);
      expect((failed[0]!.args.reason.length - 2) / 2).toBe(256);
      expect(await balance(contracts.tokens.USDT, d)).toBe(0n);
      // Copied and logged whole, the 100 kB reason would cost the batch 800k gas of log data alone (8 a byte).
      expect(receipt.gasUsed).toBeLessThan(400_000n);
      console.log(`a batch of 2 (first sweeps) with a target reverting with 100 kB: ${receipt.gasUsed} gas`);
    });

    it('as a payout address, is given 50k gas with the native coin, not all there is', async () => {
      const burner = await hostile(0n);
      const deposit = create2Addresses(contracts.factory).addressFor({ merchantId: 'm', mode: 'test', reference: 'payment-100', payout: burner });
      await mined(await wallet().sendTransaction({ to: deposit, value: parseEther('0.1') }));
      const native = '0x0000000000000000000000000000000000000000' as const;
      // Deployed by a first sweep (which fails alone), then swept directly with a million gas.
      await sweepWith([{ payout: burner, salt: salt(100), token: native }], 1_000_000n);
      const receipt = await mined(
        await wallet(stranger).writeContract({ address: deposit, abi: Deposit.abi, functionName: 'sweep', args: [native], gas: 1_000_000n }),
      );
      expect(receipt.status).toBe('reverted');
      expect(receipt.gasUsed).toBeLessThan(100_000n);
      expect(await reader.getBalance({ address: deposit })).toBe(parseEther('0.1'));
    });

    it('cannot make the sweeper pay for a block: its gas limit has a ceiling above what a batch can spend', () => {
      // A wrong node's (or an uncapped contract's) estimate of a block's gas, for two targets.
      expect(sweepGasLimit(30_000_000n, 2)).toBe(560_000n);
      expect(sweepGasLimit(100_000n, 2)).toBe(360_000n);
      expect(sweepGasLimit(400_000n, 2)).toBe(480_000n);
    });
  });
});

describe("a deposit that carries the operator's fee", { timeout: 60_000 }, () => {
  const operator = devAccount(5).address;
  type Fee = { to: Address; numerator: number; denominator: number };
  const feeAddress = (owner: Address, n: number, fee: Fee) =>
    create2Addresses(contracts.factory).addressFor({ merchantId: 'm', mode: 'test', reference: `payment-${n}`, payout: owner, fee });
  const target = (owner: Address, n: number, fee: Fee, token: Address) => ({
    payout: owner,
    feeTo: fee.to,
    feeNumerator: fee.numerator,
    feeDenominator: fee.denominator,
    salt: salt(n),
    token,
  });
  const sweepFees = async (targets: Array<ReturnType<typeof target>>) =>
    mined(await wallet(stranger).writeContract({ address: contracts.factory, abi: DepositFactory.abi, functionName: 'sweepWithFees', args: [targets] }));
  const onePercent: Fee = { to: operator, numerator: 100, denominator: 10_100 };

  it('binds the fee address and fraction into the address, computed off-chain as the factory does; no fee is the old address', async () => {
    const a = feeAddress(payout, 100, onePercent);
    expect(
      await reader.readContract({
        address: contracts.factory,
        abi: DepositFactory.abi,
        functionName: 'addressWithFee',
        args: [payout, operator, 100, 10_100, salt(100)],
      }),
    ).toBe(a);
    expect(feeAddress(payout, 100, { ...onePercent, to: stranger.address })).not.toBe(a);
    expect(feeAddress(payout, 100, { ...onePercent, numerator: 99 })).not.toBe(a);
    expect(feeAddress(payout, 100, { ...onePercent, denominator: 10_000 })).not.toBe(a);
    expect(feeAddress(payout, 100, { ...onePercent, numerator: 0 })).toBe(depositAddress(payout, 100));
  });

  it('splits a sweep: floor(amount * numerator / denominator) to the fee address, the rest to the payout, whoever sweeps', async () => {
    const deposit = feeAddress(payout, 110, onePercent);
    const paid = parseUnits('101.000000000000000033', 18);
    await mined(await wallet().writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'transfer', args: [deposit, paid] }));
    const [p0, f0] = [await balance(contracts.tokens.USDT, payout), await balance(contracts.tokens.USDT, operator)];
    const receipt = await sweepFees([target(payout, 110, onePercent, contracts.tokens.USDT)]);
    const fee = (paid * 100n) / 10_100n;
    expect(await balance(contracts.tokens.USDT, operator)).toBe(f0 + fee);
    expect(await balance(contracts.tokens.USDT, payout)).toBe(p0 + paid - fee);
    expect(await balance(contracts.tokens.USDT, deposit)).toBe(0n);
    expect(await reader.readContract({ address: deposit, abi: Deposit.abi, functionName: 'fee' })).toEqual([operator, 100, 10_100]);
    // Swept names the whole amount that left the deposit.
    expect(parseEventLogs({ abi: DepositFactory.abi, eventName: 'Swept', logs: receipt.logs }).map((e) => e.args.amount)).toEqual([paid]);
  });

  it('cannot be swept with another fee: other terms reach another, empty address, and the deployed deposit keeps its own', async () => {
    const deposit = feeAddress(payout, 120, onePercent);
    await pay(deposit, '10');
    await sweepFees([target(payout, 120, { to: stranger.address, numerator: 5000, denominator: 10_000 }, contracts.tokens.USDT)]);
    await sweep([{ payout, salt: salt(120), token: contracts.tokens.USDT }]);
    expect(await balance(contracts.tokens.USDT, deposit)).toBe(parseUnits('10', 18));
    expect(await balance(contracts.tokens.USDT, stranger.address)).toBe(parseUnits('1000000', 18));
    await sweepFees([target(payout, 120, onePercent, contracts.tokens.USDT)]);
    await pay(deposit, '3');
    const before = await balance(contracts.tokens.USDT, operator);
    await mined(await wallet(stranger).writeContract({ address: deposit, abi: Deposit.abi, functionName: 'sweep', args: [contracts.tokens.USDT] }));
    expect(await balance(contracts.tokens.USDT, operator)).toBe(before + (parseUnits('3', 18) * 100n) / 10_100n);
  });

  it('splits the native coin too, and a batch of fee deposits keeps each on its own (a frozen one does not hold back the rest)', async () => {
    const native = feeAddress(payout, 130, onePercent);
    await mined(await wallet().sendTransaction({ to: native, value: parseEther('1') }));
    const [a, b] = [131, 132].map((n) => feeAddress(payout, n, onePercent)) as [Address, Address];
    for (const d of [a, b]) await pay(d, '2');
    await mined(await wallet(stranger).writeContract({ address: contracts.tokens.USDT, abi: TestToken.abi, functionName: 'freeze', args: [a] }));
    const [n0, f0] = [await reader.getBalance({ address: operator }), await balance(contracts.tokens.USDT, operator)];
    const receipt = await sweepFees([
      target(payout, 130, onePercent, '0x0000000000000000000000000000000000000000'),
      target(payout, 131, onePercent, contracts.tokens.USDT),
      target(payout, 132, onePercent, contracts.tokens.USDT),
    ]);
    expect(await reader.getBalance({ address: operator })).toBe(n0 + (parseEther('1') * 100n) / 10_100n);
    expect(await balance(contracts.tokens.USDT, operator)).toBe(f0 + (parseUnits('2', 18) * 100n) / 10_100n);
    expect(parseEventLogs({ abi: DepositFactory.abi, eventName: 'SweepFailed', logs: receipt.logs }).map((f) => f.args.deposit)).toEqual([a]);
  });

  it('costs about one more transfer: first sweep under 130k, a later one under 80k', async () => {
    const deposit = feeAddress(payout, 140, onePercent);
    await pay(deposit, '4');
    const first = await sweepFees([target(payout, 140, onePercent, contracts.tokens.USDT)]);
    await pay(deposit, '4');
    const later = await sweepFees([target(payout, 140, onePercent, contracts.tokens.USDT)]);
    expect(first.gasUsed).toBeLessThan(130_000n);
    expect(later.gasUsed).toBeLessThan(80_000n);
  });
});

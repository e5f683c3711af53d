// The deposit contract on a real local EVM node (anvil): an address receives before anything
// is deployed there, a sweep sends everything to the payout address and nowhere else, and a
// second sweep is harmless. Also: the committed bytecode is what the Solidity source compiles to.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, encodeAbiParameters, getContractAddress, http, keccak256, parseUnits, toHex, concat, type Address } from 'viem';
import { foundry } from 'viem/chains';
import * as artifacts from './artifacts.generated.ts';
import { compileContracts } from './compile.ts';
import { deployDevContracts, devAccount, type DevContracts } from '../devchain/deploy.ts';
import { startDevChain, type DevChain } from '../devchain/anvil.ts';

const { Deposit, DepositFactory, TestToken } = artifacts;
let chain: DevChain;
let contracts: DevContracts;
let reader: ReturnType<typeof createPublicClient>;
const customer = devAccount(1);
const payout = devAccount(2).address;
const stranger = devAccount(3);

beforeAll(async () => {
  chain = await startDevChain();
  contracts = await deployDevContracts(chain.url, 4);
  reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
}, 60_000);
afterAll(() => chain?.stop());

const wallet = (account = customer) => createWalletClient({ account, chain: foundry, transport: http(chain.url) });
const balance = (token: Address, owner: Address) => reader.readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [owner] });
const mined = (hash: `0x${string}`) => reader.waitForTransactionReceipt({ hash, pollingInterval: 50 });
const salt = (n: number) => keccak256(toHex(`payment-${n}`));

/** The deposit address, computed off-chain exactly as CREATE2 will place it. */
const depositAddress = (owner: Address, s: `0x${string}`) =>
  getContractAddress({
    opcode: 'CREATE2',
    from: contracts.factory,
    salt: s,
    bytecode: concat([Deposit.bytecode, encodeAbiParameters([{ type: 'address' }], [owner])]),
  });

async function pay(to: Address, amount: string, symbol: 'USDT' | 'USDC' = 'USDT') {
  const decimals = symbol === 'USDC' ? 6 : 18;
  await mined(await wallet().writeContract({ address: contracts.tokens[symbol], abi: TestToken.abi, functionName: 'transfer', args: [to, parseUnits(amount, decimals)] }));
}

async function sweep(targets: Array<{ payout: Address; salt: `0x${string}`; token: Address }>, by = stranger) {
  return mined(await wallet(by).writeContract({ address: contracts.factory, abi: DepositFactory.abi, functionName: 'sweep', args: [targets] }));
}

describe('the deposit contract', { timeout: 60_000 }, () => {
  it('is compiled from its source: the committed bytecode is what solc makes of contracts/*.sol', () => {
    const fresh = compileContracts();
    for (const name of ['Deposit', 'DepositFactory', 'TestToken'] as const) {
      expect(fresh[name]!.bytecode).toBe(artifacts[name].bytecode);
      expect(fresh[name]!.abi).toEqual(artifacts[name].abi);
    }
  });

  it('gives each payment its own address, computed off-chain as the factory computes it', async () => {
    const a = depositAddress(payout, salt(1));
    expect(await reader.readContract({ address: contracts.factory, abi: DepositFactory.abi, functionName: 'addressOf', args: [payout, salt(1)] })).toBe(a);
    expect(depositAddress(payout, salt(2))).not.toBe(a);
    // The payout address is part of the deposit address: another payout, another address.
    expect(depositAddress(stranger.address, salt(1))).not.toBe(a);
  });

  it('receives a plain ERC-20 transfer before anything is deployed there', async () => {
    const deposit = depositAddress(payout, salt(10));
    await pay(deposit, '24.745');
    expect(await balance(contracts.tokens.USDT, deposit)).toBe(parseUnits('24.745', 18));
    expect(await reader.getCode({ address: deposit })).toBeUndefined();
  });

  it('sweeps everything to the payout address, whoever calls it; a second sweep is harmless, a third takes what came since', async () => {
    const deposit = depositAddress(payout, salt(20));
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
    const deposit = depositAddress(payout, salt(30));
    await pay(deposit, '7');
    // Naming another payout with the same salt reaches another (empty) address, not this one.
    await sweep([{ payout: stranger.address, salt: salt(30), token: contracts.tokens.USDT }]);
    expect(await balance(contracts.tokens.USDT, deposit)).toBe(parseUnits('7', 18));
    expect(await balance(contracts.tokens.USDT, stranger.address)).toBe(parseUnits('1000000', 18));
    // The deposit itself has one way out, and its payout is fixed.
    expect(Deposit.abi.filter((item) => item.type === 'function').map((item) => item.name).sort()).toEqual(['payout', 'sweep']);
    await sweep([{ payout, salt: salt(30), token: contracts.tokens.USDT }]);
    expect(await reader.readContract({ address: deposit, abi: Deposit.abi, functionName: 'payout' })).toBe(payout);
    // A stranger calling the deployed deposit directly still pays the payout address.
    await pay(deposit, '2');
    const before = await balance(contracts.tokens.USDT, payout);
    await mined(await wallet(stranger).writeContract({ address: deposit, abi: Deposit.abi, functionName: 'sweep', args: [contracts.tokens.USDT] }));
    expect(await balance(contracts.tokens.USDT, payout)).toBe(before + parseUnits('2', 18));
    expect(await balance(contracts.tokens.USDT, stranger.address)).toBe(parseUnits('1000000', 18));
  });
});

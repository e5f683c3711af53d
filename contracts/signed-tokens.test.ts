// The dev chain's coins sign as the real ones do, on a real anvil: USDC's EIP-3009 and EIP-2612 in
// USD Coin's own EIP-712 domain, DAI's permit, USDT neither. Each signature is made by viem's
// signTypedData, as a wallet's eth_signTypedData_v4 would make it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createPublicClient,
  createWalletClient,
  hashDomain,
  http,
  parseEventLogs,
  parseSignature,
  parseUnits,
  type Address,
  type Hex,
  type LocalAccount,
} from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { DaiTestToken, TestToken, TestWallet, UsdcTestToken } from './artifacts.generated.ts';
import { DEV_TOKENS, devAccount, devRpc, type DevContracts } from '../devchain/deploy.ts';
import type { DevChain } from '../devchain/anvil.ts';
import { sharedDevChain } from '../devchain/shared.ts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES } from '../server/chain/relay-authorization.ts';

let chain: DevChain;
let contracts: DevContracts;
let reader: ReturnType<typeof createPublicClient>;
let usdc: Address;
/** Pays the gas of what the payers sign: the payers themselves hold no ETH. */
const relayer = devAccount(3);
const payee = devAccount(2).address;

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
  reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
  usdc = contracts.tokens.USDC;
}, 60_000);
afterAll(() => chain?.stop());

const wallet = (account: LocalAccount) => createWalletClient({ account, chain: foundry, transport: http(chain.url) });
const mined = (hash: Hex) => reader.waitForTransactionReceipt({ hash, pollingInterval: 50 });
const balance = (token: Address, owner: Address) => reader.readContract({ address: token, abi: TestToken.abi, functionName: 'balanceOf', args: [owner] });
const now = async () => (await reader.getBlock()).timestamp;
const usdcDomain = (overrides: Partial<{ name: string; version: string; chainId: number; verifyingContract: Address }> = {}) => ({
  name: 'USD Coin',
  version: '2',
  chainId: foundry.id,
  verifyingContract: usdc,
  ...overrides,
});
const authorizationTypes = TRANSFER_WITH_AUTHORIZATION_TYPES;

/** A new account holding only `usdc` of USDC and no ETH at all. */
async function payerWith(usdcAmount: string): Promise<LocalAccount> {
  const payer = privateKeyToAccount(generatePrivateKey());
  await mined(
    await wallet(relayer).writeContract({ address: usdc, abi: TestToken.abi, functionName: 'mint', args: [payer.address, parseUnits(usdcAmount, 6)] }),
  );
  expect(await reader.getBalance({ address: payer.address })).toBe(0n);
  return payer;
}

interface Authorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

async function authorization(from: Address, value: string, overrides: Partial<Authorization> = {}): Promise<Authorization> {
  const t = await now();
  return { from, to: payee, value: parseUnits(value, 6), validAfter: 0n, validBefore: t + 3600n, nonce: generatePrivateKey(), ...overrides };
}

const sign = (signer: LocalAccount, message: Authorization, domain = usdcDomain()) =>
  signer.signTypedData({ domain, types: authorizationTypes, primaryType: 'TransferWithAuthorization', message });

/** transferWithAuthorization(…, v, r, s), sent by the relayer. */
async function relay(message: Authorization, signature: Hex) {
  const { v, r, s } = parseSignature(signature);
  const m = message;
  return mined(
    await wallet(relayer).writeContract({
      address: usdc,
      abi: UsdcTestToken.abi,
      functionName: 'transferWithAuthorization',
      args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, Number(v), r, s],
    }),
  );
}

/** What the token says of relaying it, without sending it: the revert reason, or 'ok'. */
async function refusal(message: Authorization, signature: Hex): Promise<string> {
  const m = message;
  try {
    await reader.simulateContract({
      account: relayer,
      address: usdc,
      abi: UsdcTestToken.abi,
      functionName: 'transferWithAuthorization',
      args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature],
    });
    return 'ok';
  } catch (error) {
    return (
      String((error as Error).message)
        .match(/reverted with the following reason:\s*\n?(.*)/)?.[1]
        ?.trim() ?? String(error)
    );
  }
}

const used = (authorizer: Address, nonce: Hex) =>
  reader.readContract({ address: usdc, abi: UsdcTestToken.abi, functionName: 'authorizationState', args: [authorizer, nonce] });

describe("the dev chain's USDC: EIP-3009", { timeout: 60_000 }, () => {
  it('has USD Coin\'s EIP-712 domain: name "USD Coin", version "2", this chain and this contract', async () => {
    expect(DEV_TOKENS.find((t) => t.symbol === 'USDC')).toMatchObject({ signs: { standard: 'eip3009', name: 'USD Coin', version: '2' } });
    const separator = await reader.readContract({ address: usdc, abi: UsdcTestToken.abi, functionName: 'DOMAIN_SEPARATOR' });
    expect(separator).toBe(
      hashDomain({
        domain: { ...usdcDomain(), chainId: BigInt(foundry.id) },
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
        },
      }),
    );
    expect(await reader.readContract({ address: usdc, abi: UsdcTestToken.abi, functionName: 'name' })).toBe('USD Coin');
  });

  it('moves exactly the value from the payer to the payee once, whoever sends it, and the payer needs no ETH', async () => {
    const payer = await payerWith('25');
    const message = await authorization(payer.address, '24.5');
    const signature = await sign(payer, message);
    const before = await balance(usdc, payee);
    expect(await used(payer.address, message.nonce)).toBe(false);
    const receipt = await relay(message, signature);
    expect(receipt.status).toBe('success');
    expect(await balance(usdc, payer.address)).toBe(parseUnits('0.5', 6));
    expect(await balance(usdc, payee)).toBe(before + parseUnits('24.5', 6));
    expect(await used(payer.address, message.nonce)).toBe(true);
    const events = parseEventLogs({ abi: UsdcTestToken.abi, logs: receipt.logs });
    expect(events.map((e) => e.eventName)).toEqual(['AuthorizationUsed', 'Transfer']);
    expect(events[0]!.args).toEqual({ authorizer: payer.address, nonce: message.nonce });
    expect(events[1]!.args).toEqual({ from: payer.address, to: payee, value: parseUnits('24.5', 6) });
    // The same signature again: refused, and nothing moves.
    expect(await refusal(message, signature)).toBe('EIP3009: authorization is used or canceled');
    expect(await balance(usdc, payee)).toBe(before + parseUnits('24.5', 6));
  });

  it('refuses a signature of another chain, another domain, another token, another payee or amount, or by someone else', async () => {
    const payer = await payerWith('25');
    const message = await authorization(payer.address, '10');
    expect(await refusal(message, await sign(payer, message, usdcDomain({ chainId: 1 })))).toBe('EIP3009: invalid signature');
    expect(await refusal(message, await sign(payer, message, usdcDomain({ version: '1' })))).toBe('EIP3009: invalid signature');
    expect(await refusal(message, await sign(payer, message, usdcDomain({ name: 'USDC' })))).toBe('EIP3009: invalid signature');
    expect(await refusal(message, await sign(payer, message, usdcDomain({ verifyingContract: contracts.tokens.USDT })))).toBe('EIP3009: invalid signature');
    const signature = await sign(payer, message);
    expect(await refusal({ ...message, to: relayer.address }, signature)).toBe('EIP3009: invalid signature');
    expect(await refusal({ ...message, value: message.value + 1n }, signature)).toBe('EIP3009: invalid signature');
    expect(await refusal(message, await sign(privateKeyToAccount(generatePrivateKey()), message))).toBe('EIP3009: invalid signature');
    // The right one passes: the refusals above were for the differences alone.
    expect(await refusal(message, signature)).toBe('ok');
  });

  it('refuses an expired authorization and one not yet valid, and takes it inside its window', async () => {
    const payer = await payerWith('25');
    const t = await now();
    const expired = await authorization(payer.address, '1', { validBefore: t - 1n });
    expect(await refusal(expired, await sign(payer, expired))).toBe('EIP3009: authorization is expired');
    const early = await authorization(payer.address, '1', { validAfter: t + 600n });
    const earlySignature = await sign(payer, early);
    expect(await refusal(early, earlySignature)).toBe('EIP3009: authorization is not yet valid');
    await devRpc(chain.url, 'evm_increaseTime', [601]);
    await devRpc(chain.url, 'evm_mine');
    expect(await refusal(early, earlySignature)).toBe('ok');
  });

  it("refuses a canceled nonce; only the authorizer's signature cancels, once", async () => {
    const payer = await payerWith('25');
    const message = await authorization(payer.address, '5');
    const signature = await sign(payer, message);
    const cancelTypes = {
      CancelAuthorization: [
        { name: 'authorizer', type: 'address' },
        { name: 'nonce', type: 'bytes32' },
      ],
    } as const;
    const cancel = (signer: LocalAccount) =>
      signer.signTypedData({
        domain: usdcDomain(),
        types: cancelTypes,
        primaryType: 'CancelAuthorization',
        message: { authorizer: payer.address, nonce: message.nonce },
      });
    const stranger = privateKeyToAccount(generatePrivateKey());
    await expect(
      reader.simulateContract({
        account: relayer,
        address: usdc,
        abi: UsdcTestToken.abi,
        functionName: 'cancelAuthorization',
        args: [payer.address, message.nonce, await cancel(stranger)],
      }),
    ).rejects.toThrow('EIP3009: invalid signature');
    const { v, r, s } = parseSignature(await cancel(payer));
    const receipt = await mined(
      await wallet(relayer).writeContract({
        address: usdc,
        abi: UsdcTestToken.abi,
        functionName: 'cancelAuthorization',
        args: [payer.address, message.nonce, Number(v), r, s],
      }),
    );
    expect(parseEventLogs({ abi: UsdcTestToken.abi, logs: receipt.logs }).map((e) => [e.eventName, e.args])).toEqual([
      ['AuthorizationCanceled', { authorizer: payer.address, nonce: message.nonce }],
    ]);
    expect(await used(payer.address, message.nonce)).toBe(true);
    expect(await refusal(message, signature)).toBe('EIP3009: authorization is used or canceled');
    expect(await balance(usdc, payer.address)).toBe(parseUnits('25', 6));
  });

  it('receiveWithAuthorization: only the payee may send it, so a front-runner cannot', async () => {
    const payer = await payerWith('25');
    const payeeAccount = devAccount(2);
    const message = await authorization(payer.address, '3', { to: payeeAccount.address });
    const signature = await payer.signTypedData({
      domain: usdcDomain(),
      types: { ReceiveWithAuthorization: authorizationTypes.TransferWithAuthorization },
      primaryType: 'ReceiveWithAuthorization',
      message,
    });
    const args = [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, signature] as const;
    await expect(
      reader.simulateContract({ account: relayer, address: usdc, abi: UsdcTestToken.abi, functionName: 'receiveWithAuthorization', args }),
    ).rejects.toThrow('EIP3009: caller must be the payee');
    // A TransferWithAuthorization signature is not a ReceiveWithAuthorization one.
    await expect(
      reader.simulateContract({
        account: payeeAccount,
        address: usdc,
        abi: UsdcTestToken.abi,
        functionName: 'receiveWithAuthorization',
        args: [message.from, message.to, message.value, message.validAfter, message.validBefore, message.nonce, await sign(payer, message)],
      }),
    ).rejects.toThrow('EIP3009: invalid signature');
    const before = await balance(usdc, payeeAccount.address);
    expect(
      (await mined(await wallet(payeeAccount).writeContract({ address: usdc, abi: UsdcTestToken.abi, functionName: 'receiveWithAuthorization', args }))).status,
    ).toBe('success');
    expect(await balance(usdc, payeeAccount.address)).toBe(before + parseUnits('3', 6));
  });

  it("takes a smart-contract wallet's signature through ERC-1271, and refuses one its owner did not make", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const receipt = await mined(await wallet(relayer).deployContract({ abi: TestWallet.abi, bytecode: TestWallet.bytecode, args: [owner.address] }));
    const contractWallet = receipt.contractAddress!;
    await mined(await wallet(relayer).writeContract({ address: usdc, abi: TestToken.abi, functionName: 'mint', args: [contractWallet, parseUnits('25', 6)] }));
    const message = await authorization(contractWallet, '24.5');
    expect(await refusal(message, await sign(privateKeyToAccount(generatePrivateKey()), message))).toBe('EIP3009: invalid signature');
    // The wallet's owner signs the authorization the wallet is `from` of; the wallet vouches for it.
    const before = await balance(usdc, payee);
    expect((await relay(message, await sign(owner, message))).status).toBe('success');
    expect(await balance(usdc, payee)).toBe(before + parseUnits('24.5', 6));
    expect(await balance(usdc, contractWallet)).toBe(parseUnits('0.5', 6));
  });

  it("keeps TestToken's freeze: a frozen payer's authorization moves nothing", async () => {
    const payer = await payerWith('25');
    await mined(await wallet(relayer).writeContract({ address: usdc, abi: TestToken.abi, functionName: 'freeze', args: [payer.address] }));
    const message = await authorization(payer.address, '1');
    expect(await refusal(message, await sign(payer, message))).toBe('frozen');
  });
});

describe("the dev chain's USDC: EIP-2612 permit", { timeout: 60_000 }, () => {
  const permitTypes = {
    Permit: [
      { name: 'owner', type: 'address' },
      { name: 'spender', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'nonce', type: 'uint256' },
      { name: 'deadline', type: 'uint256' },
    ],
  } as const;

  it('sets the allowance from a signature, counts its nonce, and refuses a replay, an expired one or another signer', async () => {
    const owner = await payerWith('25');
    const spender = relayer.address;
    const nonce = await reader.readContract({ address: usdc, abi: UsdcTestToken.abi, functionName: 'nonces', args: [owner.address] });
    expect(nonce).toBe(0n);
    const deadline = (await now()) + 600n;
    const message = { owner: owner.address, spender, value: parseUnits('24.5', 6), nonce, deadline };
    const { v, r, s } = parseSignature(await owner.signTypedData({ domain: usdcDomain(), types: permitTypes, primaryType: 'Permit', message }));
    const args = [owner.address, spender, message.value, deadline, Number(v), r, s] as const;
    const stranger = privateKeyToAccount(generatePrivateKey());
    const forged = parseSignature(await stranger.signTypedData({ domain: usdcDomain(), types: permitTypes, primaryType: 'Permit', message }));
    await expect(
      reader.simulateContract({
        account: relayer,
        address: usdc,
        abi: UsdcTestToken.abi,
        functionName: 'permit',
        args: [owner.address, spender, message.value, deadline, Number(forged.v), forged.r, forged.s],
      }),
    ).rejects.toThrow('EIP2612: invalid signature');
    await mined(await wallet(relayer).writeContract({ address: usdc, abi: UsdcTestToken.abi, functionName: 'permit', args }));
    expect(await reader.readContract({ address: usdc, abi: TestToken.abi, functionName: 'allowance', args: [owner.address, spender] })).toBe(
      parseUnits('24.5', 6),
    );
    expect(await reader.readContract({ address: usdc, abi: UsdcTestToken.abi, functionName: 'nonces', args: [owner.address] })).toBe(1n);
    await expect(reader.simulateContract({ account: relayer, address: usdc, abi: UsdcTestToken.abi, functionName: 'permit', args })).rejects.toThrow(
      'EIP2612: invalid signature',
    );
    const late = { ...message, nonce: 1n, deadline: (await now()) - 1n };
    const lateSig = parseSignature(await owner.signTypedData({ domain: usdcDomain(), types: permitTypes, primaryType: 'Permit', message: late }));
    await expect(
      reader.simulateContract({
        account: relayer,
        address: usdc,
        abi: UsdcTestToken.abi,
        functionName: 'permit',
        args: [owner.address, spender, late.value, late.deadline, Number(lateSig.v), lateSig.r, lateSig.s],
      }),
    ).rejects.toThrow('EIP2612: permit is expired');
    // The allowance is spent as any approval's.
    await mined(
      await wallet(relayer).writeContract({
        address: usdc,
        abi: TestToken.abi,
        functionName: 'transferFrom',
        args: [owner.address, payee, parseUnits('24.5', 6)],
      }),
    );
    expect(await balance(usdc, owner.address)).toBe(parseUnits('0.5', 6));
  });
});

describe("the dev chain's DAI: DAI's own permit", { timeout: 60_000 }, () => {
  const daiPermitTypes = {
    Permit: [
      { name: 'holder', type: 'address' },
      { name: 'spender', type: 'address' },
      { name: 'nonce', type: 'uint256' },
      { name: 'expiry', type: 'uint256' },
      { name: 'allowed', type: 'bool' },
    ],
  } as const;

  it('allows all or nothing in the domain "Dai Stablecoin" version "1", with a named nonce and an expiry', async () => {
    const dai = contracts.tokens.DAI;
    const domain = { name: 'Dai Stablecoin', version: '1', chainId: foundry.id, verifyingContract: dai };
    const holder = privateKeyToAccount(generatePrivateKey());
    const spender = relayer.address;
    const permit = async (message: { holder: Address; spender: Address; nonce: bigint; expiry: bigint; allowed: boolean }, signer = holder, d = domain) => {
      const { v, r, s } = parseSignature(await signer.signTypedData({ domain: d, types: daiPermitTypes, primaryType: 'Permit', message }));
      return [message.holder, message.spender, message.nonce, message.expiry, message.allowed, Number(v), r, s] as const;
    };
    const send = async (args: Awaited<ReturnType<typeof permit>>) =>
      mined(await wallet(relayer).writeContract({ address: dai, abi: DaiTestToken.abi, functionName: 'permit', args }));
    const refused = (args: Awaited<ReturnType<typeof permit>>) =>
      reader.simulateContract({ account: relayer, address: dai, abi: DaiTestToken.abi, functionName: 'permit', args });
    const allowance = () => reader.readContract({ address: dai, abi: TestToken.abi, functionName: 'allowance', args: [holder.address, spender] });
    const expiry = (await now()) + 600n;
    // EIP-2612's permit is not DAI's: USDC's signature shape is refused at the ABI (no such function).
    expect(
      DaiTestToken.abi
        .filter((item) => item.type === 'function' && item.name === 'permit')
        .map((item) => item.type === 'function' && item.inputs.map((i) => i.name)),
    ).toEqual([['holder', 'spender', 'nonce', 'expiry', 'allowed', 'v', 'r', 's']]);
    await expect(
      refused(await permit({ holder: holder.address, spender, nonce: 0n, expiry, allowed: true }, holder, { ...domain, name: 'Dai' })),
    ).rejects.toThrow('Dai/invalid-permit');
    await expect(refused(await permit({ holder: holder.address, spender, nonce: 1n, expiry, allowed: true }))).rejects.toThrow('Dai/invalid-nonce');
    await expect(refused(await permit({ holder: holder.address, spender, nonce: 0n, expiry: (await now()) - 1n, allowed: true }))).rejects.toThrow(
      'Dai/permit-expired',
    );
    await send(await permit({ holder: holder.address, spender, nonce: 0n, expiry, allowed: true }));
    expect(await allowance()).toBe(2n ** 256n - 1n);
    expect(await reader.readContract({ address: dai, abi: DaiTestToken.abi, functionName: 'nonces', args: [holder.address] })).toBe(1n);
    // Expiry 0 never expires; allowed false takes the allowance back.
    await send(await permit({ holder: holder.address, spender, nonce: 1n, expiry: 0n, allowed: false }));
    expect(await allowance()).toBe(0n);
    expect(await reader.readContract({ address: dai, abi: DaiTestToken.abi, functionName: 'name' })).toBe('Dai Stablecoin');
  });
});

describe("the dev chain's USDT: signs nothing", { timeout: 60_000 }, () => {
  it('reverts transferWithAuthorization, permit and authorizationState, as the real USDT has none of them', async () => {
    const usdt = contracts.tokens.USDT;
    const payer = devAccount(1);
    const message = await authorization(payer.address, '1');
    const signature = await sign(payer, message, usdcDomain({ verifyingContract: usdt }));
    const m = message;
    await expect(
      reader.simulateContract({
        account: relayer,
        address: usdt,
        abi: UsdcTestToken.abi,
        functionName: 'transferWithAuthorization',
        args: [m.from, m.to, m.value, m.validAfter, m.validBefore, m.nonce, signature],
      }),
    ).rejects.toThrow(/revert/i);
    const { v, r, s } = parseSignature(signature);
    await expect(
      reader.simulateContract({
        account: relayer,
        address: usdt,
        abi: UsdcTestToken.abi,
        functionName: 'permit',
        args: [payer.address, relayer.address, 1n, m.validBefore, Number(v), r, s],
      }),
    ).rejects.toThrow(/revert/i);
    await expect(
      reader.readContract({ address: usdt, abi: UsdcTestToken.abi, functionName: 'authorizationState', args: [payer.address, m.nonce] }),
    ).rejects.toThrow(/revert/i);
    await expect(reader.readContract({ address: usdt, abi: UsdcTestToken.abi, functionName: 'DOMAIN_SEPARATOR' })).rejects.toThrow(/revert/i);
  });
});

// What the relay checks of a signed transfer (EIP-3009) before it spends gas, on a real anvil
// with the dev chain's USDC: each refusal names its field, and an authorization that passes is
// one the token takes (sent here from the gas wallet, it moves exactly what is due, once).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, custom, http, HttpRequestError, parseUnits, type Address, type LocalAccount, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { TestToken, TestWallet } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, GAS_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DomainError } from '../../domain/errors.ts';
import type { Network } from '../networks.ts';
import {
  authorizationDomain,
  checkAuthorization,
  relayCallData,
  TRANSFER_WITH_AUTHORIZATION_TYPES,
  type RelayTarget,
  type TransferAuthorization,
} from '../relay-authorization.ts';

let chain: DevChain;
let contracts: DevContracts;
let network: Network;
let rpc: PublicClient;
const gasWallet = devAccount(GAS_DEV_ACCOUNT);
const funder = devAccount(3);
/** A deposit address stands in: what matters is that `to` is this one. */
const deposit = privateKeyToAccount(generatePrivateKey()).address;

beforeAll(async () => {
  ({ chain, contracts } = await sharedDevChain());
  network = devNetwork(chain.url, contracts);
  rpc = createPublicClient({ chain: foundry, transport: http(chain.url) }) as PublicClient;
}, 60_000);
afterAll(() => chain?.stop());

const mined = async (hash: `0x${string}`) => rpc.waitForTransactionReceipt({ hash, pollingInterval: 50 });
const usdcToken = () => network.tokens.find((t) => t.symbol === 'USDC')!;
const target = (): RelayTarget => ({ chainId: foundry.id, token: contracts.tokens.USDC, address: deposit, due: parseUnits('24.5', 6) });
const now = async () => (await rpc.getBlock()).timestamp;

async function funded(owner: Address, amount = '25') {
  await mined(
    await createWalletClient({ account: funder, chain: foundry, transport: http(chain.url) }).writeContract({
      address: contracts.tokens.USDC,
      abi: TestToken.abi,
      functionName: 'mint',
      args: [owner, parseUnits(amount, 6)],
    }),
  );
}

async function signed(
  signer: LocalAccount,
  from: Address,
  overrides: Partial<Omit<TransferAuthorization, 'signature'>> = {},
  domain = authorizationDomain(network, usdcToken()),
): Promise<TransferAuthorization> {
  const message = {
    from,
    to: deposit,
    value: parseUnits('24.5', 6),
    validAfter: 0n,
    validBefore: (await now()) + 900n,
    nonce: generatePrivateKey(),
    ...overrides,
  };
  return {
    ...message,
    signature: await signer.signTypedData({ domain, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization', message }),
  };
}

/** The refusal as the API would answer it: status family and the field named; 'ok' when it passes. */
async function refusal(a: TransferAuthorization, chainId: number = foundry.id, t: RelayTarget = target()): Promise<string> {
  try {
    await checkAuthorization(rpc, network, t, chainId, a, await now(), gasWallet.address);
    return 'ok';
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return `${error.code} ${error.fields?.map((f) => f.field).join(',')}`;
  }
}

describe("the relay's checks before any gas is spent", { timeout: 60_000 }, () => {
  it('passes a payer with 0 ETH and 25 USDC signing exactly what is due, and the token then takes it once', async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await funded(payer.address);
    expect(await rpc.getBalance({ address: payer.address })).toBe(0n);
    const a = await signed(payer, payer.address);
    expect(await refusal(a)).toBe('ok');
    const receipt = await mined(
      await createWalletClient({ account: gasWallet, chain: foundry, transport: http(chain.url) }).sendTransaction({
        to: contracts.tokens.USDC,
        data: relayCallData(a),
      }),
    );
    expect(receipt.status).toBe('success');
    expect(await rpc.readContract({ address: contracts.tokens.USDC, abi: TestToken.abi, functionName: 'balanceOf', args: [deposit] })).toBe(
      parseUnits('24.5', 6),
    );
    // Relayed: the same authorization again is refused before any gas, a 409 on its nonce.
    expect(await refusal(a)).toBe('conflict authorization.nonce');
  });

  it('refuses, naming the field: another chain, another address, another amount, expired, not yet valid, another signer, another domain', async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await funded(payer.address);
    const a = await signed(payer, payer.address);
    expect(await refusal(a, 1)).toBe('validation_failed chain_id');
    expect(await refusal(await signed(payer, payer.address, { to: funder.address }))).toBe('validation_failed authorization.to');
    expect(await refusal(await signed(payer, payer.address, { value: parseUnits('24.49', 6) }))).toBe('validation_failed authorization.value');
    expect(await refusal(await signed(payer, payer.address, { value: parseUnits('25', 6) }))).toBe('validation_failed authorization.value');
    expect(await refusal(await signed(payer, payer.address, { validBefore: (await now()) - 1n }))).toBe('validation_failed authorization.validBefore');
    // Valid for a few more seconds only: too close to expiring to be mined.
    expect(await refusal(await signed(payer, payer.address, { validBefore: (await now()) + 5n }))).toBe('validation_failed authorization.validBefore');
    expect(await refusal(await signed(payer, payer.address, { validAfter: (await now()) + 60n }))).toBe('validation_failed authorization.validAfter');
    expect(await refusal(await signed(privateKeyToAccount(generatePrivateKey()), payer.address))).toBe('validation_failed signature');
    // Signed for chain 1's domain, or another version: the signature does not recover to `from` here.
    expect(await refusal(await signed(payer, payer.address, {}, { ...authorizationDomain(network, usdcToken()), chainId: 1 }))).toBe(
      'validation_failed signature',
    );
    expect(await refusal(await signed(payer, payer.address, {}, { ...authorizationDomain(network, usdcToken()), version: '1' }))).toBe(
      'validation_failed signature',
    );
    // A field changed after signing.
    expect(await refusal({ ...a, nonce: generatePrivateKey() })).toBe('validation_failed signature');
    // The untouched one passes: each refusal above was its own difference.
    expect(await refusal(a)).toBe('ok');
  });

  it('refuses a payer without the funds, a canceled nonce, and a token that does not sign', async () => {
    const poor = privateKeyToAccount(generatePrivateKey());
    await funded(poor.address, '24.49');
    expect(await refusal(await signed(poor, poor.address))).toBe('validation_failed authorization.from');
    const payer = privateKeyToAccount(generatePrivateKey());
    await funded(payer.address);
    const a = await signed(payer, payer.address);
    const cancel = await payer.signTypedData({
      domain: authorizationDomain(network, usdcToken()),
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: a.nonce },
    });
    await mined(
      await createWalletClient({ account: funder, chain: foundry, transport: http(chain.url) }).writeContract({
        address: contracts.tokens.USDC,
        abi: [
          {
            type: 'function',
            name: 'cancelAuthorization',
            stateMutability: 'nonpayable',
            inputs: [
              { name: 'authorizer', type: 'address' },
              { name: 'nonce', type: 'bytes32' },
              { name: 'signature', type: 'bytes' },
            ],
            outputs: [],
          },
        ],
        functionName: 'cancelAuthorization',
        args: [payer.address, a.nonce, cancel],
      }),
    );
    expect(await refusal(a)).toBe('conflict authorization.nonce');
    // A payment in USDT: USDT signs nothing, whatever is sent.
    expect(await refusal(await signed(payer, payer.address), foundry.id, { ...target(), token: contracts.tokens.USDT })).toBe(
      'validation_failed authorization',
    );
  });

  it("answers 503, not a refusal of the signature, when the node fails during the relay's simulation", async () => {
    const payer = privateKeyToAccount(generatePrivateKey());
    await funded(payer.address);
    const a = await signed(payer, payer.address);
    // A node that answers every read but the simulation (the one call made from the gas wallet).
    const base = http(chain.url)({ chain: foundry });
    const flaky = createPublicClient({
      chain: foundry,
      transport: custom(
        {
          request: async ({ method, params }) => {
            if (method === 'eth_call' && (params as Array<{ from?: string }>)[0]?.from) throw new HttpRequestError({ url: chain.url, details: 'down' });
            return base.request({ method, params } as never);
          },
        },
        { retryCount: 0 },
      ),
    }) as PublicClient;
    const answer = await checkAuthorization(flaky, network, target(), foundry.id, a, await now(), gasWallet.address).then(
      () => 'ok',
      (error: DomainError) => `${error.code}`,
    );
    expect(answer).toBe('service_unavailable');
    expect(await refusal(a)).toBe('ok');
  });

  it("passes a smart-contract wallet's signature (ERC-1271), and refuses one its owner did not make", async () => {
    const owner = privateKeyToAccount(generatePrivateKey());
    const receipt = await mined(
      await createWalletClient({ account: funder, chain: foundry, transport: http(chain.url) }).deployContract({
        abi: TestWallet.abi,
        bytecode: TestWallet.bytecode,
        args: [owner.address],
      }),
    );
    const wallet = receipt.contractAddress!;
    await funded(wallet);
    expect(await refusal(await signed(privateKeyToAccount(generatePrivateKey()), wallet))).toBe('validation_failed signature');
    const a = await signed(owner, wallet);
    expect(await refusal(a)).toBe('ok');
    expect(
      (
        await mined(
          await createWalletClient({ account: gasWallet, chain: foundry, transport: http(chain.url) }).sendTransaction({
            to: contracts.tokens.USDC,
            data: relayCallData(a),
          }),
        )
      ).status,
    ).toBe('success');
    expect(await rpc.readContract({ address: contracts.tokens.USDC, abi: TestToken.abi, functionName: 'balanceOf', args: [wallet] })).toBe(
      parseUnits('0.5', 6),
    );
  });
});

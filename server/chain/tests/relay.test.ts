// Paying with one signature, through the service on a real anvil: a customer with no
// ETH signs an EIP-3009 transfer of what is due to the payment's deposit address, the service
// relays it from the gas wallet, and the watcher credits it like any transfer, once. Each refusal
// is a 4xx naming its field and spends no gas (sweeps are off here: the gas wallet's nonce counts
// relays alone). A front-runner who sends the same signature first pays the same payment, once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, type Address, type Hex, type LocalAccount } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { TestToken, TestWallet } from '../../../contracts/artifacts.generated.ts';
import { deployDevContracts, devAccount, devNetwork, GAS_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../../devchain/anvil.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import type { Network } from '../networks.ts';
import { authorizationDomain, relayCallData, TRANSFER_WITH_AUTHORIZATION_TYPES } from '../relay-authorization.ts';
import { caller, until } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
let chain: DevChain;
let contracts: DevContracts;
let network: Network;
let api: Service;
const gasWallet = devAccount(GAS_DEV_ACCOUNT).address;
const funder = devAccount(3);
const payout = devAccount(9).address;
const ADMIN = 'op_relay_' + 'a'.repeat(40);

beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  contracts = await deployDevContracts(chain, 4);
  network = devNetwork(chain.url, contracts, 2);
  // No sweeps: every transaction of the gas wallet here is a relay.
  api = await startService({
    demo: true,
    adminToken: ADMIN,
    networks: { test: network },
    devChain: DEV_CHAIN_POWERS,
    watchIntervalMs: 100,
    webhookRetryMs: 100,
    sweepIntervalMs: 0,
  });
  expect((await call('PUT', '/api/v1/payout_address', { chain_id: 31337, address: payout }, secretKey)).status).toBe(200);
}, 60_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
});

const call = caller(() => api.url);
const reader = () => createPublicClient({ chain: foundry, transport: http(chain.url) });
const mined = (hash: Hex) => reader().waitForTransactionReceipt({ hash, pollingInterval: 50 });
const gasNonce = () => reader().getTransactionCount({ address: gasWallet });
const usdcBalance = (owner: Address) => reader().readContract({ address: contracts.tokens.USDC, abi: TestToken.abi, functionName: 'balanceOf', args: [owner] });

async function payment(reference: string, amount = 24.5) {
  const created = await call('POST', '/api/v1/transaction/initialize', { reference, coin: 'USDC', currency: 'USD', amount });
  expect(created.status).toBe(201);
  return { address: created.body.data.address as Address, due: parseUnits(String(created.body.data.cryptoAmount), 6) };
}

async function payerWith(amount: string, owner?: Address): Promise<Address> {
  const who = owner ?? privateKeyToAccount(generatePrivateKey()).address;
  await mined(
    await createWalletClient({ account: funder, chain: foundry, transport: http(chain.url) }).writeContract({
      address: contracts.tokens.USDC,
      abi: TestToken.abi,
      functionName: 'mint',
      args: [who, parseUnits(amount, 6)],
    }),
  );
  return who;
}

interface Signed {
  message: { from: Address; to: Address; value: bigint; validAfter: bigint; validBefore: bigint; nonce: Hex };
  signature: Hex;
}

async function sign(
  signer: LocalAccount,
  from: Address,
  to: Address,
  value: bigint,
  overrides: Partial<Signed['message']> = {},
  chainId = 31337,
): Promise<Signed> {
  const t = (await reader().getBlock()).timestamp;
  const message = { from, to, value, validAfter: 0n, validBefore: t + 900n, nonce: generatePrivateKey(), ...overrides };
  const domain = { ...authorizationDomain(network, network.tokens.find((x) => x.symbol === 'USDC')!), chainId };
  return {
    message,
    signature: await signer.signTypedData({ domain, types: TRANSFER_WITH_AUTHORIZATION_TYPES, primaryType: 'TransferWithAuthorization', message }),
  };
}

/** The body the checkout sends: integers as decimal text, as signed. */
const bodyOf = (s: Signed, chainId = 31337) => ({
  chain_id: chainId,
  authorization: { ...s.message, value: String(s.message.value), validAfter: String(s.message.validAfter), validBefore: String(s.message.validBefore) },
  signature: s.signature,
});
const relay = (reference: string, s: Signed, chainId?: number) => call('POST', `/api/v1/transaction/relay/${reference}`, bodyOf(s, chainId));
const fieldsOf = (answer: { body: { errors?: Array<{ field: string }> } }) => answer.body.errors?.map((e) => e.field);
const creditedTo = async (address: Address) =>
  (await api.parts.chain.transfers(31337)).filter((t) => t.recipient === address.toLowerCase() && t.state === 'credited');

describe('paying with one signature', { timeout: 90_000 }, () => {
  it('a payer with 0 ETH and 25 USDC pays 24.50 USD by one signature: relayed, confirmed once, and the same signature again answers the same relay', async () => {
    const { address, due } = await payment('sig-1');
    expect(due).toBe(parseUnits('24.5', 6));
    const payer = privateKeyToAccount(generatePrivateKey());
    await payerWith('25', payer.address);
    expect(await reader().getBalance({ address: payer.address })).toBe(0n);
    const signed = await sign(payer, payer.address, address, due);
    const relayed = await relay('sig-1', signed);
    expect(relayed.status).toBe(201);
    expect(relayed.body.data).toMatchObject({ chainId: 31337, relayedByUs: true });
    const receipt = await reader().getTransactionReceipt({ hash: relayed.body.data.txHash });
    expect(receipt.from.toLowerCase()).toBe(gasWallet.toLowerCase());
    expect(await usdcBalance(payer.address)).toBe(parseUnits('0.5', 6));
    expect(await usdcBalance(address)).toBe(due);
    await until('confirmed', async () => (await call('GET', '/api/v1/transaction/verify/sig-1')).body.data.status === 'confirmed');
    expect(await creditedTo(address)).toHaveLength(1);
    // Idempotent on the nonce: the same request answers the same transaction, and sends nothing.
    const nonce = await gasNonce();
    const again = await relay('sig-1', signed);
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual({ chainId: 31337, txHash: relayed.body.data.txHash, relayedByUs: true });
    expect(await gasNonce()).toBe(nonce);
    // The same authorization named for another payment: 409 on its nonce.
    await payment('sig-1b');
    const other = await relay('sig-1b', signed);
    expect(other.status).toBe(409);
    expect(fieldsOf(other)).toEqual(['authorization.nonce']);
  });

  it('refuses before any gas is spent, naming the field', async () => {
    const { address, due } = await payment('sig-2');
    const payer = privateKeyToAccount(generatePrivateKey());
    await payerWith('25', payer.address);
    const nonce = await gasNonce();
    const t = (await reader().getBlock()).timestamp;
    const refusals: Array<[string, Promise<{ status: number; body: any }>]> = [
      ['chain_id', relay('sig-2', await sign(payer, payer.address, address, due, {}, 1), 1)],
      ['signature', relay('sig-2', await sign(payer, payer.address, address, due, {}, 1))],
      ['authorization.to', relay('sig-2', await sign(payer, payer.address, payout, due))],
      ['authorization.value', relay('sig-2', await sign(payer, payer.address, address, due - 1n))],
      ['authorization.validBefore', relay('sig-2', await sign(payer, payer.address, address, due, { validBefore: t - 1n }))],
      ['signature', relay('sig-2', await sign(privateKeyToAccount(generatePrivateKey()), payer.address, address, due))],
    ];
    for (const [field, answer] of refusals) {
      const { status, body } = await answer;
      expect([field, status, body.errors?.map((e: { field: string }) => e.field)]).toEqual([field, 400, [field]]);
    }
    // A payer without the funds.
    const poor = privateKeyToAccount(generatePrivateKey());
    await payerWith('24', poor.address);
    const short = await relay('sig-2', await sign(poor, poor.address, address, due));
    expect([short.status, fieldsOf(short)]).toEqual([400, ['authorization.from']]);
    // A canceled nonce: 409.
    const canceled = await sign(payer, payer.address, address, due);
    const cancel = await payer.signTypedData({
      domain: authorizationDomain(network, network.tokens.find((x) => x.symbol === 'USDC')!),
      types: {
        CancelAuthorization: [
          { name: 'authorizer', type: 'address' },
          { name: 'nonce', type: 'bytes32' },
        ],
      },
      primaryType: 'CancelAuthorization',
      message: { authorizer: payer.address, nonce: canceled.message.nonce },
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
        args: [payer.address, canceled.message.nonce, cancel],
      }),
    );
    const refusedCanceled = await relay('sig-2', canceled);
    expect([refusedCanceled.status, fieldsOf(refusedCanceled)]).toEqual([409, ['authorization.nonce']]);
    // A malformed body is refused at the boundary, naming the field.
    const malformed = await call('POST', '/api/v1/transaction/relay/sig-2', {
      ...bodyOf(canceled),
      authorization: { ...bodyOf(canceled).authorization, value: '24.5' },
    });
    expect([malformed.status, fieldsOf(malformed)]).toEqual([400, ['authorization.value']]);
    // A coin that does not sign: a USDT payment.
    const usdt = await call('POST', '/api/v1/transaction/initialize', { reference: 'sig-2-usdt', coin: 'USDT', currency: 'USD', amount: 5 });
    const notSigning = await relay('sig-2-usdt', await sign(payer, payer.address, usdt.body.data.address, due));
    expect([notSigning.status, fieldsOf(notSigning)]).toEqual([400, ['authorization']]);
    // None of it cost the gas wallet a transaction; nothing moved.
    expect(await gasNonce()).toBe(nonce);
    expect(await usdcBalance(address)).toBe(0n);
    expect(await usdcBalance(payer.address)).toBe(parseUnits('25', 6));
  });

  it('a front-runner who sends the same signature first pays this payment, once; the relay answers that transaction', async () => {
    const { address, due } = await payment('sig-3');
    const payer = privateKeyToAccount(generatePrivateKey());
    await payerWith('25', payer.address);
    const signed = await sign(payer, payer.address, address, due);
    const frontRunner = devAccount(2);
    const theirs = await mined(
      await createWalletClient({ account: frontRunner, chain: foundry, transport: http(chain.url) }).sendTransaction({
        to: contracts.tokens.USDC,
        data: relayCallData({ ...signed.message, signature: signed.signature }),
      }),
    );
    expect(theirs.status).toBe('success');
    const nonce = await gasNonce();
    const relayed = await relay('sig-3', signed);
    expect(relayed.status).toBe(200);
    expect(relayed.body.data).toEqual({ chainId: 31337, txHash: theirs.transactionHash, relayedByUs: false });
    expect(await gasNonce()).toBe(nonce);
    await until('confirmed', async () => (await call('GET', '/api/v1/transaction/verify/sig-3')).body.data.status === 'confirmed');
    expect(await creditedTo(address)).toHaveLength(1);
    expect(await usdcBalance(address)).toBe(due);
    // Relayed by us first, the front-runner's copy reverts and moves nothing.
    const second = await payment('sig-4');
    const payer2 = privateKeyToAccount(generatePrivateKey());
    await payerWith('25', payer2.address);
    const signed2 = await sign(payer2, payer2.address, second.address, second.due);
    expect((await relay('sig-4', signed2)).status).toBe(201);
    await expect(
      reader().call({ account: frontRunner, to: contracts.tokens.USDC, data: relayCallData({ ...signed2.message, signature: signed2.signature }) }),
    ).rejects.toThrow(/used or canceled/);
    await until('confirmed', async () => (await call('GET', '/api/v1/transaction/verify/sig-4')).body.data.status === 'confirmed');
    expect(await creditedTo(second.address)).toHaveLength(1);
  });

  it("a smart-contract wallet (ERC-1271) pays by its owner's signature", async () => {
    const { address, due } = await payment('sig-5');
    const owner = privateKeyToAccount(generatePrivateKey());
    const deployed = await mined(
      await createWalletClient({ account: funder, chain: foundry, transport: http(chain.url) }).deployContract({
        abi: TestWallet.abi,
        bytecode: TestWallet.bytecode,
        args: [owner.address],
      }),
    );
    const wallet = deployed.contractAddress!;
    await payerWith('25', wallet);
    const relayed = await relay('sig-5', await sign(owner, wallet, address, due));
    expect(relayed.status).toBe(201);
    await until('confirmed', async () => (await call('GET', '/api/v1/transaction/verify/sig-5')).body.data.status === 'confirmed');
    expect(await usdcBalance(wallet)).toBe(parseUnits('0.5', 6));
  });

  it('counts in /metrics what became of each relay, the field each refusal named, and the gas the gas wallet spent', async () => {
    const text = await (await fetch(api.url + '/metrics', { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    const value = (series: string) =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(series + ' '))
          ?.split(' ')[1],
      );
    // Relayed: sig-1, sig-4, sig-5; found on the chain: sig-1 again, sig-3 (front-run); refused: sig-1b and the ten of sig-2 but the malformed body (refused at the boundary, before the relay).
    expect([
      value('service_relays_total{outcome="relayed"}'),
      value('service_relays_total{outcome="already_on_chain"}'),
      value('service_relays_total{outcome="refused"}'),
      value('service_relays_total{outcome="failed"}'),
    ]).toEqual([3, 2, 10, 0]);
    expect(value('service_relay_refusals_total{field="authorization.nonce"}')).toBe(2);
    expect(value('service_relay_refusals_total{field="signature"}')).toBe(2);
    expect(value('service_relay_refusals_total{field="authorization.value"}')).toBe(1);
    // What the three relays cost the gas wallet, to the wei.
    const spent = await Promise.all(
      (await api.parts.chain.transfers(31337)).map(async (t) => {
        const receipt = await reader().getTransactionReceipt({ hash: t.txHash as Hex });
        return receipt.from.toLowerCase() === gasWallet.toLowerCase() ? receipt.gasUsed * receipt.effectiveGasPrice : 0n;
      }),
    );
    expect(value('service_relay_gas_wei_total{chain="31337"}')).toBe(Number(spent.reduce((a, b) => a + b, 0n)));
    expect(value('service_relay_gas_wei_total{chain="31337"}')).toBeGreaterThan(0);
  });
});

// Going live, rehearsed. An anvil stands in for a public chain (chain id 97, as BNB
// Smart Chain's testnet): nothing of the dev chain's shortcuts is known to the service (no dev
// flag, no sandbox, no dev accounts). The operator deploys the factory with the command, writes
// the network file from its output, starts the service (its chain checked at start), makes a
// merchant while it runs; the merchant names a payout address and takes a payment that a wallet
// pays from the EIP-681 URI alone; it confirms, is swept, and the webhook arrives. Then the same
// start with a wrong factory, chain id and decimals: each stops, naming the field.
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, http, parseUnits, toHex, type Address, type Hex } from 'viem';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount } from '../../../devchain/deploy.ts';
import { startDevChain, type DevChain } from '../../../devchain/anvil.ts';
import { spawnService, type ServiceProcess } from '../../testing/process.ts';
import { startReceiver, type Receiver } from '../../testing/receiver.ts';
import { MAIN } from '../../testing/process.ts';

const run = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'rehearsal-'));
let chain: DevChain;
let usdt: Address;
let service: ServiceProcess | undefined;
let hook: Receiver | undefined;
const timings: Record<string, number> = {};
const keyOf = (index: number): Hex => toHex(devAccount(index).getHdKey().privateKey!);
const reader = () => createPublicClient({ transport: http(chain.url) });

beforeAll(async () => {
  chain = await startDevChain({ chainId: 97 });
  // The chain's own USDT, put there by its issuer (18 decimals, as on BNB Smart Chain).
  const issuer = createWalletClient({ account: devAccount(5), transport: http(chain.url) });
  const deployed = await issuer.deployContract({ chain: null, abi: TestToken.abi, bytecode: TestToken.bytecode, args: ['Tether USD', 'USDT', 18] });
  usdt = (await reader().waitForTransactionReceipt({ hash: deployed })).contractAddress!;
  await reader().waitForTransactionReceipt({
    hash: await issuer.writeContract({
      chain: null,
      address: usdt,
      abi: TestToken.abi,
      functionName: 'mint',
      args: [devAccount(3).address, parseUnits('1000', 18)],
    }),
  });
}, 60_000);
afterAll(async () => {
  await service?.kill();
  await hook?.close();
  await chain?.stop();
});

const api = async (method: string, path: string, key: string, body?: unknown) => {
  const response = await fetch(service!.url + path, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: response.status, body: await response.json() };
};
const command = (...args: string[]) => commandWith({}, ...args);
const commandWith = (env: Record<string, string>, ...args: string[]) =>
  run(process.execPath, [MAIN, ...args], { env: { PATH: process.env.PATH ?? '', DATA_DIR: join(dir, 'data'), LOG_LEVEL: 'warn', ...env } });
async function until<T>(what: string, probe: () => Promise<T | undefined | false>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > end) throw new Error(`waited ${ms} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
/** The network file as the operator writes it from the deploy command's entry. */
function networksFile(entry: Record<string, unknown>, name = 'networks.json'): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ test: entry }));
  return path;
}

let entry: Record<string, unknown>;

it('deploys the factory with the command, and finds it there the second time', { timeout: 60_000 }, async () => {
  const keyFile = join(dir, 'deployer.key');
  writeFileSync(keyFile, keyOf(4), { mode: 0o600 });
  const started = performance.now();
  const first = JSON.parse((await command('chain', 'deploy', '--rpc', chain.url, '--key-file', keyFile, '--json')).stdout);
  timings.deploy = performance.now() - started;
  expect(first).toMatchObject({ chainId: 97, deployed: true, transaction: expect.stringMatching(/^0x/) });
  expect(await reader().getCode({ address: first.factory })).toBeDefined();
  const again = JSON.parse((await command('chain', 'deploy', '--rpc', chain.url, '--key-file', keyFile, '--json')).stdout);
  expect(again).toMatchObject({ chainId: 97, deployed: false, factory: first.factory });
  // The key file's content never reaches the output, even when it is wrong.
  writeFileSync(join(dir, 'bad.key'), 'not-a-key-' + keyOf(4).slice(12));
  const bad = await command('chain', 'deploy', '--rpc', chain.url, '--key-file', join(dir, 'bad.key')).catch(
    (error: { code: number; stderr: string; stdout: string }) => error,
  );
  expect((bad as { code: number }).code).toBe(1);
  expect((bad as { stderr: string }).stderr).toMatch(/--key-file: .* does not hold a private key/);
  expect(JSON.stringify(bad)).not.toContain(keyOf(4).slice(12));
  entry = { ...first.network, name: 'Stand-in BNB testnet', confirmations: 2, tokens: [{ symbol: 'USDT', name: 'Tether USD', address: usdt, decimals: 18 }] };
});

it('takes a payment on it from start to sweep: a merchant made while it runs, a wallet that reads only the URI, the webhook', {
  timeout: 120_000,
}, async () => {
  const gas = devAccount(6);
  const payout = devAccount(7).address;
  const env = {
    NETWORKS_FILE: networksFile(entry),
    GAS_WALLET_KEY: keyOf(6),
    DATA_DIR: join(dir, 'data'),
    SEED_DEMO_MERCHANT: 'false',
    SWEEP_INTERVAL_MS: '500',
    // Test keys on a chain set up as a live one: live keys send webhooks only to public https
    // hosts, and this rehearsal's receiver is on this machine.
    WEBHOOKS_TO_LOOPBACK: 'true',
  };
  let started = performance.now();
  service = await spawnService(env);
  timings.start = performance.now() - started;
  expect(await reader().getBalance({ address: gas.address })).toBeGreaterThan(0n);

  started = performance.now();
  const made = JSON.parse((await command('merchant', 'create', '--name', 'Rehearsal Ltd', '--email', 'ops@rehearsal.example', '--json')).stdout);
  timings.merchant = performance.now() - started;
  const secret = made.keys.test.secretKey as string;
  expect((await api('GET', '/api/v1/webhook', secret)).status).toBe(200); // at once, no restart

  hook = await startReceiver((await api('GET', '/api/v1/webhook', secret)).body.data.secret);
  expect((await api('PUT', '/api/v1/webhook', secret, { url: hook.url })).status).toBe(200);
  expect((await api('PUT', '/api/v1/payout_address', secret, { chain_id: 97, address: payout })).status).toBe(200);
  const created = await api('POST', '/api/v1/transaction/initialize', secret, { reference: 'rehearsal-1', coin: 'USDT', currency: 'USD', amount: 12.5 });
  expect(created.status).toBe(201);
  const press = await api('POST', '/api/v1/sandbox/deposit', secret, { reference: 'rehearsal-1', kind: 'exact' });
  expect([press.status, press.body.message]).toEqual([403, expect.stringMatching(/The sandbox sends nothing on Stand-in BNB testnet/)]); // no shortcuts

  // The customer's wallet reads only the EIP-681 URI.
  const { uri } = (await api('GET', '/api/v1/transaction/qr/rehearsal-1', secret)).body.data as { uri: string };
  const parsed = /^ethereum:(0x[0-9a-fA-F]{40})@(\d+)\/transfer\?address=(0x[0-9a-fA-F]{40})&uint256=(\d+)$/.exec(uri)!;
  expect(parsed, uri).not.toBeNull();
  const [, token, chainId, to, amount] = parsed;
  expect(Number(chainId)).toBe(97);
  const wallet = createWalletClient({ account: devAccount(3), transport: http(chain.url) });
  started = performance.now();
  await wallet.writeContract({ chain: null, address: token as Address, abi: TestToken.abi, functionName: 'transfer', args: [to as Address, BigInt(amount!)] });
  await reader().request({ method: 'anvil_mine' as 'eth_blockNumber', params: ['0x2'] as never });
  await until('the payment confirmed', async () => (await api('GET', '/api/v1/transaction/verify/rehearsal-1', secret)).body.data.status === 'confirmed');
  timings.confirmed = performance.now() - started;
  const balance = () => reader().readContract({ address: usdt, abi: TestToken.abi, functionName: 'balanceOf', args: [payout] });
  await until('the sweep to the payout address', async () => (await balance()) === BigInt(amount!));
  timings.swept = performance.now() - started;
  const told = await until('the webhook', async () => hook!.events.find((e) => e.data.reference === 'rehearsal-1' && e.data.status === 'confirmed'));
  expect(told.event).toBe('DEPOSIT_TRANSACTION');

  // Money the watcher does not follow, sent to the same deposit: the chain's own coin and a
  // token no network lists. The operator's command moves each to the payout address, and only there.
  const other = await createWalletClient({ account: devAccount(5), transport: http(chain.url) }).deployContract({
    chain: null,
    abi: TestToken.abi,
    bytecode: TestToken.bytecode,
    args: ['Other', 'OTH', 8],
  });
  const unlisted = (await reader().waitForTransactionReceipt({ hash: other })).contractAddress!;
  await reader().waitForTransactionReceipt({
    hash: await wallet.writeContract({ chain: null, address: unlisted, abi: TestToken.abi, functionName: 'mint', args: [to as Address, 4242n] }),
  });
  await reader().waitForTransactionReceipt({ hash: await wallet.sendTransaction({ chain: null, to: to as Address, value: 10n ** 17n }) });
  const nativeBefore = await reader().getBalance({ address: payout });
  const sweepEnv = { NETWORKS_FILE: env.NETWORKS_FILE, GAS_WALLET_KEY: env.GAS_WALLET_KEY };
  const sweep = (token: string) =>
    commandWith(
      { ...sweepEnv },
      'chain',
      'sweep',
      '--chain',
      '97',
      '--merchant',
      made.id,
      '--mode',
      'test',
      '--reference',
      'rehearsal-1',
      '--payout',
      payout,
      '--token',
      token,
    );
  expect((await sweep(unlisted)).stdout).toMatch(/^Swept 4242 base units of 0x[0-9a-fA-F]{40} from 0x[0-9a-fA-F]{40} to /);
  expect((await sweep('native')).stdout).toMatch(/^Swept 100000000000000000 base units of native/);
  expect(await reader().readContract({ address: unlisted, abi: TestToken.abi, functionName: 'balanceOf', args: [payout] })).toBe(4242n);
  expect(await reader().getBalance({ address: payout })).toBe(nativeBefore + 10n ** 17n);
  // Naming another payout reaches another (empty) deposit: nothing of this one moves.
  const elsewhere = await commandWith(
    { ...sweepEnv },
    'chain',
    'sweep',
    '--chain',
    '97',
    '--merchant',
    made.id,
    '--mode',
    'test',
    '--reference',
    'rehearsal-1',
    '--payout',
    devAccount(3).address,
    '--token',
    'native',
  );
  expect(elsewhere.stdout).toMatch(/^Swept 0 base units/);

  await service.kill();
  service = undefined;
  console.log(
    `rehearsal on chain 97: deploy ${timings.deploy!.toFixed(0)} ms, start ${timings.start!.toFixed(0)} ms, merchant while running ${timings.merchant!.toFixed(0)} ms, paid → confirmed ${timings.confirmed!.toFixed(0)} ms, → swept ${timings.swept!.toFixed(0)} ms`,
  );
});

it.each([
  ['a wrong factory', () => ({ ...entry, factory: usdt }), /NETWORKS_FILE test\.factory: .* is not this service's deposit factory/],
  ['a wrong chain id', () => ({ ...entry, chainId: 56 }), /NETWORKS_FILE test\.chainId: the RPC answers chain 97, the file says 56/],
  [
    'wrong decimals',
    () => ({ ...entry, tokens: [{ symbol: 'USDT', name: 'Tether USD', address: usdt, decimals: 6 }] }),
    /NETWORKS_FILE test\.tokens\.0\.decimals: USDT at .* has 18 decimals, the file says 6/,
  ],
  [
    'an RPC URL that does not answer',
    () => ({ ...entry, rpcUrls: ['http://127.0.0.1:9'] }),
    /NETWORKS_FILE test\.rpcUrls: no answer from http:\/\/127\.0\.0\.1:9/,
  ],
])('stops a start on %s, naming the field', { timeout: 60_000 }, async (_, wrong, message) => {
  const refused = await spawnService({ NETWORKS_FILE: networksFile(wrong(), 'wrong.json'), DATA_DIR: join(dir, 'wrong'), SEED_DEMO_MERCHANT: 'false' }).then(
    async (started) => {
      await started.kill();
      return 'started';
    },
    (error: Error) => error.message,
  );
  expect(refused).toMatch(/exited \(1\) before listening/);
  expect(refused).toMatch(message);
  expect(refused).not.toMatch(/\n\s+at /); // one line, no stack trace
});

// Issue 38's done-when: the same withdrawal sent twice at once with one Idempotency-Key moves
// money once (one journal entry, one transfer on the chain) and both answers are the same. On
// PostgreSQL by two service instances sharing the database (one request to each); on PGlite,
// whose database one process owns, by two requests to its one instance. Also issue 33 item 4:
// a withdrawal below the network's minimum is refused naming `amount`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicClient, createWalletClient, erc20Abi, http, parseUnits } from 'viem';
import { foundry } from 'viem/chains';
import { startService, type Service } from '../../service/app.ts';
import { EXTERNAL, merchantAccount, move } from '../ledger-rules.ts';
import { DEMO_MERCHANT } from '../../service/seed.ts';
import { databaseOptions, KINDS } from '../../testing/databases.ts';
import { TestToken } from '../../../contracts/artifacts.generated.ts';
import { devAccount, devNetwork, TREASURY_DEV_ACCOUNT, type DevContracts } from '../../../devchain/deploy.ts';
import type { DevChain } from '../../../devchain/anvil.ts';
import { sharedDevChain } from '../../../devchain/shared.ts';
import { DEV_CHAIN_POWERS } from '../../../devchain/sandbox.ts';
import { until } from '../../testing/chain.ts';

const { secretKey } = DEMO_MERCHANT.keys.test;
const treasury = devAccount(TREASURY_DEV_ACCOUNT).address;

describe.each(KINDS)('a withdrawal sent twice at once with one Idempotency-Key, on %s', { timeout: 120_000 }, (kind) => {
  let chain: DevChain;
  let contracts: DevContracts;
  const services: Service[] = [];
  beforeAll(async () => {
    ({ chain, contracts } = await sharedDevChain());
  }, 60_000);
  afterAll(async () => {
    for (const s of services) await s.close();
    await chain?.stop();
  });

  const call = async (api: Service, method: string, path: string, body?: unknown, key?: string) => {
    const response = await fetch(api.url + path, {
      method,
      headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as any };
  };

  it('moves the money once, in the journal and on the chain, and answers both the same', async () => {
    const network = devNetwork(chain.url, contracts, 1);
    const options = {
      demo: true,
      networks: { test: network },
      devChain: DEV_CHAIN_POWERS,
      jobIntervalMs: 200,
      sweepIntervalMs: 0,
      ...(await databaseOptions(kind)),
    };
    const a = await startService(options);
    services.push(a);
    // PGlite: one process owns the database, so the second "instance" is the same one.
    const b = kind === 'postgres' ? await startService({ ...options, instance: 'second' }) : a;
    if (b !== a) services.push(b);
    const reader = createPublicClient({ chain: foundry, transport: http(chain.url) });
    const usdt = (who: `0x${string}`) => reader.readContract({ address: contracts.tokens.USDT, abi: erc20Abi, functionName: 'balanceOf', args: [who] });

    // A balance of 10 USDT: in the treasury on the chain, and the merchant's in the journal.
    expect((await call(a, 'PUT', '/api/v1/settlement', { settlement: 'balance' })).status).toBe(200);
    const funder = createWalletClient({ account: devAccount(1), chain: foundry, transport: http(chain.url) });
    await reader.waitForTransactionReceipt({
      hash: await funder.writeContract({
        address: contracts.tokens.USDT,
        abi: TestToken.abi,
        functionName: 'transfer',
        args: [treasury, parseUnits('10', 18)],
      }),
      pollingInterval: 50,
    });
    const owner = { merchant: DEMO_MERCHANT, mode: 'test' as const };
    await a.parts.journal.post(
      a.db,
      { kind: 'sandbox_deposit', ref: `fund-${kind}`, owner, memo: 'the treasury funded for a test' },
      move(EXTERNAL.sandbox, merchantAccount(DEMO_MERCHANT.id, 'test', 'available'), 31337, contracts.tokens.USDT.toLowerCase(), parseUnits('10', 18)),
      Date.now(),
    );

    const wallet = devAccount(4).address;
    const before = await usdt(wallet);
    // Below the network's minimum (one token by default): refused naming amount, before any key is taken.
    const small = await call(a, 'POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: 31337, address: wallet, amount: '0.5' }, 'too-small');
    expect(small.status).toBe(400);
    expect(small.body.errors).toEqual([{ field: 'amount', message: expect.stringMatching(/at least 1 USDT, the smallest withdrawal on/) }]);

    const body = { coin: 'USDT', chain_id: 31337, address: wallet, amount: '3' };
    const [first, second] = await Promise.all([
      call(a, 'POST', '/api/v1/withdrawals', body, 'withdraw-once'),
      call(b, 'POST', '/api/v1/withdrawals', body, 'withdraw-once'),
    ]);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body).toEqual(first.body);
    expect([first.replayed, second.replayed].sort()).toEqual([null, 'true']);
    const id = first.body.data.id as string;
    await until('the withdrawal completed', async () => (await call(a, 'GET', `/api/v1/withdrawals/${id}`)).body.data.status === 'completed', 60_000, 200);
    // A retry later answers the same first answer, and moves nothing.
    const later = await call(b, 'POST', '/api/v1/withdrawals', body, 'withdraw-once');
    expect(later).toMatchObject({ status: 201, replayed: 'true' });
    expect(later.body).toEqual(first.body);
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // a second withdrawal, were there one, would be sent by now

    expect(await usdt(wallet)).toBe(before + parseUnits('3', 18));
    expect(await a.db.query(`SELECT id FROM withdrawals`)).toEqual([{ id }]);
    const entries = await a.db.query<{ kind: string }>(`SELECT kind FROM journal_entries WHERE kind LIKE 'withdrawal%' ORDER BY kind`);
    expect(entries.map((e) => e.kind)).toEqual(['withdrawal_reserved', 'withdrawal_sent']);
    const held = await a.parts.journal.held(31337, contracts.tokens.USDT);
    expect(held.merchants + held.fees + held.payable).toBe(await usdt(treasury));
  });
});

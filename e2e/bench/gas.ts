// Gas per sweep, measured on a fresh dev chain: the deposit contract of this tree against the
// one committed at a baseline revision (HEAD by default; give b36aca8~1 for the contract
// before its proxies), in one run. `npm run bench:gas -- <rev>` prints a table; figures are exact (gas
// does not vary between runs), so one sample each is the median.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createPublicClient, createWalletClient, http, keccak256, parseUnits, toHex, type Abi, type Address, type Hex } from 'viem';
import { foundry } from 'viem/chains';
import * as current from '../../contracts/artifacts.generated.ts';
import { startDevChain } from '../../devchain/anvil.ts';
import { devAccount } from '../../devchain/deploy.ts';

interface Artifacts {
  DepositFactory: { abi: Abi; bytecode: Hex };
  TestToken: { abi: Abi; bytecode: Hex };
}

async function baseline(rev: string): Promise<Artifacts> {
  const source = execFileSync('git', ['show', `${rev}:contracts/artifacts.generated.ts`], { encoding: 'utf8' }).replace(/ as const;/g, ';');
  const file = join(mkdtempSync(join(tmpdir(), 'gas-')), 'artifacts.mjs');
  writeFileSync(file, source);
  return (await import(pathToFileURL(file).href)) as Artifacts;
}

async function measure(artifacts: Artifacts, url: string) {
  const account = devAccount(0);
  const wallet = createWalletClient({ account, chain: foundry, transport: http(url) });
  const reader = createPublicClient({ chain: foundry, transport: http(url) });
  const mined = (hash: Hex) => reader.waitForTransactionReceipt({ hash, pollingInterval: 20 });
  const deploy = async (c: { abi: Abi; bytecode: Hex }, args: unknown[] = []) =>
    (await mined(await wallet.deployContract({ abi: c.abi, bytecode: c.bytecode, args }))).contractAddress!;
  const token = await deploy(artifacts.TestToken, ['Tether USD', 'USDT', 18]);
  const factory = await deploy(artifacts.DepositFactory);
  const payout = devAccount(2).address;
  let n = 0;
  const targets = async (count: number) => {
    const list = [];
    for (let i = 0; i < count; i++) {
      const salt = keccak256(toHex(`gas-${n++}`));
      list.push({ payout, salt, token });
    }
    return list;
  };
  const fill = async (list: Array<{ payout: Address; salt: Hex; token: Address }>) => {
    for (const t of list) {
      const deposit = (await reader.readContract({
        address: factory,
        abi: artifacts.DepositFactory.abi,
        functionName: 'addressOf',
        args: [t.payout, t.salt],
      })) as Address;
      await mined(await wallet.writeContract({ address: token, abi: artifacts.TestToken.abi, functionName: 'mint', args: [deposit, parseUnits('10', 18)] }));
    }
  };
  const sweep = async (list: Array<{ payout: Address; salt: Hex; token: Address }>) =>
    (await mined(await wallet.writeContract({ address: factory, abi: artifacts.DepositFactory.abi, functionName: 'sweep', args: [list] }))).gasUsed;
  const one = await targets(1);
  await fill(one);
  const firstOne = await sweep(one);
  await fill(one);
  const laterOne = await sweep(one);
  const ten = await targets(10);
  await fill(ten);
  const firstTen = await sweep(ten);
  await fill(ten);
  const laterTen = await sweep(ten);
  return { firstOne, laterOne, firstTen, laterTen };
}

const rev = process.argv[2] ?? 'HEAD';
const chain = await startDevChain();
try {
  const before = await measure(await baseline(rev), chain.url);
  const after = await measure(current as unknown as Artifacts, chain.url);
  const rows: Array<[string, keyof typeof before]> = [
    ['first sweep, 1 deposit (deploys it)', 'firstOne'],
    ['later sweep, 1 deposit', 'laterOne'],
    ['first sweep, 10 deposits', 'firstTen'],
    ['later sweep, 10 deposits', 'laterTen'],
  ];
  console.log(`gas used per sweep transaction, baseline ${rev} vs this tree (anvil, paris EVM)`);
  console.log(`${'what'.padEnd(38)} ${'before'.padStart(9)} ${'after'.padStart(9)}  ratio`);
  for (const [label, key] of rows)
    console.log(
      `${label.padEnd(38)} ${String(before[key]).padStart(9)} ${String(after[key]).padStart(9)}  ${(Number(after[key]) / Number(before[key])).toFixed(2)}`,
    );
  const per = (x: typeof before, key: 'firstTen' | 'laterTen') => (Number(x[key]) - 21_000) / 10;
  console.log(
    `${'per deposit in a batch of 10, first'.padEnd(38)} ${per(before, 'firstTen').toFixed(0).padStart(9)} ${per(after, 'firstTen').toFixed(0).padStart(9)}  ${(per(after, 'firstTen') / per(before, 'firstTen')).toFixed(2)}`,
  );
  console.log(
    `${'per deposit in a batch of 10, later'.padEnd(38)} ${per(before, 'laterTen').toFixed(0).padStart(9)} ${per(after, 'laterTen').toFixed(0).padStart(9)}  ${(per(after, 'laterTen') / per(before, 'laterTen')).toFixed(2)}`,
  );
} finally {
  await chain.stop();
}

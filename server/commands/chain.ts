// `npm run service -- chain deploy --rpc <url> --key-file <file> [--json]`: puts the deposit
// factory on a chain (or finds it there) and prints the network file's entry for it. The key
// is read from a file, never from the command line (shell history, `ps`) nor printed.
// `npm run service -- chain sweep …`: moves what a deposit holds that the service does not
// sweep by itself (the native coin, a token no network lists) to the deposit's payout address.
import { readFileSync } from 'node:fs';
import { isAddress, type Address } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { deployFactory, sweepAny } from '../chain/deploy.ts';
import { networkList } from '../chain/config.ts';
import { verbsOf } from './index.ts';
import type { Config } from '../service/config.ts';

const USAGE =
  'usage: npm run service -- chain deploy --rpc https://… --key-file ./deployer.key [--json]\n' +
  '       npm run service -- chain sweep --chain <id> --merchant <merchant id> --mode test|live --reference <reference> --payout 0x… --token 0x…|native\n' +
  'The deploy key file holds the private key (0x and 64 hex digits) of a wallet with gas on that chain; it pays for the deployment only.\n' +
  'A sweep is paid by the gas wallet (GAS_WALLET_KEY) on a chain of NETWORKS_FILE; it can only send to the payout address the deposit was made for.';

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
}

export async function runChainCommand(
  args: string[],
  config?: Pick<Config, 'networks' | 'gasKey'>,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  if (args[0] === 'sweep' && verbsOf('chain').includes('sweep')) return sweepCommand(args, config, out, err);
  if (args[0] !== 'deploy' || !verbsOf('chain').includes('deploy')) {
    err(USAGE);
    return 2;
  }
  const rpc = option(args, 'rpc');
  const keyFile = option(args, 'key-file');
  if (!rpc || !/^https?:\/\//.test(rpc)) {
    err(`--rpc: expected the chain's RPC URL (http:// or https://)\n${USAGE}`);
    return 2;
  }
  if (!keyFile) {
    err(`--key-file: expected a file holding the deployer's private key\n${USAGE}`);
    return 2;
  }
  let key: string;
  try {
    key = readFileSync(keyFile, 'utf8').trim();
  } catch (error) {
    err(`--key-file: cannot read ${keyFile} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
    return 1;
  }
  if (!/^(0x)?[0-9a-fA-F]{64}$/.test(key)) {
    err(`--key-file: ${keyFile} does not hold a private key (0x and 64 hex digits); its content is not shown`);
    return 1;
  }
  const account = privateKeyToAccount((key.startsWith('0x') ? key : `0x${key}`) as `0x${string}`);
  try {
    const done = await deployFactory(rpc, account);
    const entry = { chainId: done.chainId, name: `Chain ${done.chainId}`, rpcUrls: [rpc], confirmations: 12, factory: done.factory, tokens: [] };
    if (args.includes('--json')) {
      out(JSON.stringify({ ...done, network: entry }));
    } else {
      out(`Deposit factory ${done.factory} on chain ${done.chainId}: ${done.deployed ? `deployed now (transaction ${done.transaction})` : 'already there'}.`);
      out("(The entry repeats the RPC URL you gave, which may hold your provider's key: keep the network file as private as the key.)");
      out('Its entry for NETWORKS_FILE, under "live" or "test" (name it, set its confirmations, list its tokens with their real decimals):');
      out(JSON.stringify(entry, null, 2));
    }
    return 0;
  } catch (error) {
    err(`chain deploy: ${(error as Error).message.split('\n')[0]}`);
    return 1;
  }
}

async function sweepCommand(
  args: string[],
  config: Pick<Config, 'networks' | 'gasKey'> | undefined,
  out: (line: string) => void,
  err: (line: string) => void,
): Promise<number> {
  const chainId = Number(option(args, 'chain'));
  const mode = option(args, 'mode');
  const [merchantId, reference, payout, token] = [option(args, 'merchant'), option(args, 'reference'), option(args, 'payout'), option(args, 'token')];
  const problems = [
    !Number.isInteger(chainId) && '--chain: expected a chain id of NETWORKS_FILE',
    mode !== 'test' && mode !== 'live' && '--mode: expected test or live',
    !merchantId && '--merchant: expected the merchant id (merchant list shows it)',
    !reference && '--reference: expected the payment reference',
    !(payout && isAddress(payout)) && '--payout: expected the payout address the payment was made for (0x…)',
    !(token === 'native' || (token && isAddress(token))) && '--token: expected a token contract (0x…) or native',
  ].filter(Boolean);
  if (problems.length) {
    err(`${problems.join('\n')}\n${USAGE}`);
    return 2;
  }
  const network = networkList(config?.networks?.[mode as 'test' | 'live']).find((n) => n.chainId === chainId);
  if (!network) {
    err(`--chain: NETWORKS_FILE has no ${mode} network with chain id ${chainId}`);
    return 1;
  }
  if (!config?.gasKey) {
    err('GAS_WALLET_KEY: the gas wallet pays for the sweep; set it as for the service');
    return 1;
  }
  try {
    const done = await sweepAny(
      network,
      privateKeyToAccount(config.gasKey),
      { merchantId: merchantId!, mode: mode!, reference: reference!, payout: payout as Address },
      token === 'native' ? '0x0000000000000000000000000000000000000000' : (token as Address),
    );
    if (done.failed) {
      err(`chain sweep: the deposit ${done.deposit} could not send it (${done.failed}); transaction ${done.transaction}`);
      return 1;
    }
    out(`Swept ${done.amount} base units of ${token} from ${done.deposit} to ${payout} (transaction ${done.transaction}).`);
    return 0;
  } catch (error) {
    err(`chain sweep: ${(error as Error).message.split('\n')[0]}`);
    return 1;
  }
}

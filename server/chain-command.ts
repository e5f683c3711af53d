// `npm run service -- chain deploy --rpc <url> --key-file <file> [--json]`: puts the deposit
// factory on a chain (or finds it there) and prints the network file's entry for it. The key
// is read from a file, never from the command line (shell history, `ps`) nor printed.
import { readFileSync } from 'node:fs';
import { privateKeyToAccount } from 'viem/accounts';
import { deployFactory } from './chain/deploy.ts';

const USAGE = 'usage: npm run service -- chain deploy --rpc https://… --key-file ./deployer.key [--json]\n' + 'The key file holds the private key (0x and 64 hex digits) of a wallet with gas on that chain; it pays for the deployment only.';

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
}

export async function runChainCommand(args: string[], out: (line: string) => void = console.log, err: (line: string) => void = console.error): Promise<number> {
  if (args[0] !== 'deploy') {
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
      out('Its entry for NETWORKS_FILE, under "live" or "test" (name it, set its confirmations, list its tokens with their real decimals):');
      out(JSON.stringify(entry, null, 2));
    }
    return 0;
  } catch (error) {
    err(`chain deploy: ${(error as Error).message.split('\n')[0]}`);
    return 1;
  }
}

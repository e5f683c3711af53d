// The operator's command line, `npm run service -- <command>`: every command it runs, in one
// table. `--help` prints it; operator.ts and chain-command.ts run only the commands named here
// (a test holds the help, the table and what they accept the same).
export interface Command {
  /** The words after `npm run service --` ('' for the service itself). */
  command: string;
  options: string;
  does: string;
}

export const COMMANDS: readonly Command[] = [
  { command: '', options: '', does: 'runs the service, its settings from the environment (docs/operating.md)' },
  {
    command: 'merchant create',
    options: '--name "Business name" --email orders@example.com [--logo https://…] [--json]',
    does: 'a business with test and live keys and webhook secrets, shown this once',
  },
  { command: 'merchant list', options: '[--json]', does: 'every business: id, name, e-mail' },
  { command: 'merchant roll-keys', options: '--id <merchant id> [--json]', does: 'new secret keys; the old ones stop working' },
  { command: 'merchant sign-in-link', options: '--id <merchant id> [--json]', does: 'a new one-time dashboard sign-in link (a forgotten password)' },
  {
    command: 'merchant withdrawal-limit',
    options: '--id <merchant id> --mode test|live --daily 5000|default [--json]',
    does: 'US dollars a day the merchant may withdraw, all coins and networks',
  },
  {
    command: 'merchant fee',
    options: '--id <merchant id> --mode test|live --bps 250|default [--bearer customer|merchant] [--json]',
    does: "the operator's fee on the merchant's new payments (100 is 1%), borne by the customer (added) or the merchant (deducted)",
  },
  {
    command: 'chain deploy',
    options: '--rpc https://… --key-file ./deployer.key [--json]',
    does: 'deploys the deposit factory on a chain; the key pays for the deployment only',
  },
  {
    command: 'chain sweep',
    options: '--chain <id> --merchant <merchant id> --mode test|live --reference <reference> --payout 0x… --token 0x…|native',
    does: "sends a deposit address's money to the payout address it was made for (paid by GAS_WALLET_KEY)",
  },
  {
    command: 'treasury status',
    options: '[--json]',
    does: "each treasury against the journal (held, owed, short), the holds on money movements, the operator's events",
  },
  { command: 'treasury reconcile', options: '[--json]', does: 'every treasury reconciled now, deep reorganisations looked for' },
  {
    command: 'treasury resolve',
    options: '--chain <id> --by <name> --why "<what was found and done>" [--json]',
    does: "lifts a chain's hold on withdrawals, swaps, payouts and partner transfers, recording who and why",
  },
  { command: 'help', options: '', does: 'this list (also --help, -h)' },
];

/** The verbs of a noun ('merchant', 'chain') that the table names. */
export const verbsOf = (noun: string): string[] => COMMANDS.filter((c) => c.command.startsWith(`${noun} `)).map((c) => c.command.slice(noun.length + 1));

export const isHelp = (args: string[]): boolean => args.length === 1 && ['help', '--help', '-h'].includes(args[0]!);

export function helpText(): string {
  const lines = COMMANDS.map((c) => `  npm run service --${c.command ? ` ${c.command}` : ''}${c.options ? ` ${c.options}` : ''}\n      ${c.does}`);
  return `The service and its operator's commands:\n${lines.join('\n')}\nA running service is reached at SERVICE_URL, or at the address in DATA_DIR/service.lock, with ADMIN_TOKEN or DATA_DIR/operator-token.`;
}

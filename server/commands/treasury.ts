// `npm run service -- treasury status|reconcile|resolve`: the operator's side of the treasury's
// reconciliation (docs/balances.md). Asks the running service over HTTP with the
// operator token (SERVICE_URL, or the address in DATA_DIR's lock): the reconciliation needs its
// chains, and a resolved hold must take effect on it at once.
import { verbsOf } from './index.ts';
import type { Config } from '../service/config.ts';
import { operatorName, readTokenFile } from '../service/operator-token.ts';
import { heldLock } from '../storage/lock.ts';

const USAGE =
  "usage: npm run service -- treasury status [--json]   (each treasury against the journal, the holds, the operator's events)\n" +
  '       npm run service -- treasury reconcile [--json]   (every chain looked at now)\n' +
  '       npm run service -- treasury resolve --chain <id> --by <name> --why "<what was found and done>" [--json]   (money movements on that chain resume)';

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
}

export async function runTreasuryCommand(
  args: string[],
  config: Pick<Config, 'serviceUrl' | 'dataDir' | 'databaseUrl' | 'adminToken' | 'stateDir'>,
  out: (line: string) => void = console.log,
  err: (line: string) => void = console.error,
): Promise<number> {
  const [verb] = args;
  if (!verbsOf('treasury').includes(verb ?? '')) {
    err(USAGE);
    return 2;
  }
  let body: unknown;
  if (verb === 'resolve') {
    const chain = Number(option(args, 'chain'));
    const by = option(args, 'by');
    const why = option(args, 'why');
    if (!Number.isSafeInteger(chain) || chain <= 0) return (err(`--chain: expected the chain id whose hold to resolve\n${USAGE}`), 2);
    if (!by?.trim()) return (err(`--by: expected who resolves it\n${USAGE}`), 2);
    if (!why?.trim()) return (err(`--why: expected what was found and done\n${USAGE}`), 2);
    body = { chain_id: chain, by, why };
  }
  const held = config.dataDir && !config.databaseUrl ? heldLock(config.dataDir) : undefined;
  const url = config.serviceUrl ?? (held?.role === 'service' ? held.url : undefined);
  if (!url) return (err('The treasury commands ask the running service: set SERVICE_URL, or run them where its DATA_DIR is'), 1);
  const token = config.adminToken ?? readTokenFile(config.stateDir ?? '');
  if (!token) return (err(`The service at ${url} needs the operator token: set ADMIN_TOKEN`), 1);
  const path = { status: '/operator/v1/treasury', reconcile: '/operator/v1/treasury/reconcile', resolve: '/operator/v1/treasury/holds/resolve' }[
    verb as 'status' | 'reconcile' | 'resolve'
  ];
  let response: Response;
  try {
    response = await fetch(url.replace(/\/+$/, '') + path, {
      method: verb === 'status' ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-operator': operatorName(), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(60_000),
    });
  } catch (error) {
    return (err(`The service at ${url} does not answer (${(error as Error).message})`), 1);
  }
  const reply = (await response.json().catch(() => ({}))) as { message?: string; data?: unknown };
  if (!response.ok) return (err(`The service at ${url} refused (${response.status}): ${reply.message ?? 'no message'}`), 1);
  out(args.includes('--json') ? JSON.stringify(reply.data) : `${reply.message ?? ''}\n${JSON.stringify(reply.data, null, 2)}`);
  return 0;
}

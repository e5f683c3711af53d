// The service's own commands, for whoever runs it. `merchant create` makes a business with
// test and live keys and webhook secrets, printed this once: only hashes of keys are kept.
//
// Where the command does its work: a running service is asked over HTTP with the operator
// token (SERVICE_URL, or the address the service wrote into DATA_DIR's lock), so the new keys
// work at once and nothing is written behind its back. With no service running, it opens the
// database itself, holding DATA_DIR's lock meanwhile (a service started then waits its turn).
// With PostgreSQL (DATABASE_URL) it works on the database directly: running instances read
// keys from it on every request.
import {
  CreatedMerchant,
  MerchantCreateBody,
  MerchantFee,
  MerchantFeeBody,
  MerchantList,
  RolledKeys,
  SignInLink,
  WithdrawalLimit,
  WithdrawalLimitBody,
} from '../../contract/operator.ts';
import { FeeStore } from '../merchants/fee-store.ts';
import { WithdrawalStore } from '../balances/withdrawal-store.ts';
import { payoutsSpentSince } from '../payouts/store.ts';
import { refundsSpentSince } from '../refunds/store.ts';
import { fieldErrors } from '../../contract/field-errors.ts';
import { operatorName, readTokenFile } from '../service/operator-token.ts';
import { openDatabase } from '../storage/db.ts';
import { DataDirLocked, heldLock, lockDataDir } from '../storage/lock.ts';
import { DashboardStore } from '../dashboard/store.ts';
import { MerchantStore, merchantRows } from '../merchants/store.ts';
import { memberById, memberLogins, memberRole } from '../team/store.ts';
import { factorState } from '../factors/store.ts';
import { SIGN_IN_LINK_MS } from '../merchants/sign-in-rules.ts';
import { migrate, schemaTemplate } from '../storage/migrations.ts';
import { helpText, isHelp, verbsOf } from './index.ts';
import type { Config } from '../service/config.ts';
import type { Merchant } from '../domain/account.ts';

const USAGE = `usage: npm run service -- merchant create --name "Business name" --email orders@example.com [--logo https://…] [--json]
       npm run service -- merchant list [--json]
       npm run service -- merchant roll-keys --id <merchant id> [--json]   (new secret keys; the old ones stop working)
       npm run service -- merchant sign-in-link --id <merchant id> [--json]   (a new one-time dashboard sign-in link: a forgotten password)
       npm run service -- merchant withdrawal-limit --id <merchant id> --mode test|live --daily 5000|default [--json]   (US dollars a day, all coins and networks)
         (how much of a coin the merchant may withdraw to wallets in 24 hours; default: the service's WITHDRAWAL_DAILY_LIMIT)
       npm run service -- merchant fee --id <merchant id> --mode test|live --bps 250|default [--bearer customer|merchant] [--json]
         (the operator's fee on new payments, 100 is 1%, added to the price or deducted from the merchant's; default: FEE_BPS, FEE_BEARER)
A running service is reached at SERVICE_URL, or at the address in DATA_DIR/service.lock, with ADMIN_TOKEN or DATA_DIR/operator-token.`;

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
}

/** What a command does, wherever it is done: on the running service or on the database. */
interface Merchants {
  create(body: { name: string; email: string; logo?: string }): Promise<CreatedMerchant>;
  list(): Promise<Merchant[]>;
  /** New secret keys; undefined for an unknown merchant. */
  rollSecretKeys(id: string): Promise<RolledKeys | undefined>;
  /** A new one-time dashboard sign-in link; undefined for an unknown merchant. */
  signInLink(id: string): Promise<SignInLink | undefined>;
  /** Sets a merchant's daily withdrawal limit of a coin (null: the default); undefined for an unknown merchant. */
  withdrawalLimit(id: string, body: WithdrawalLimitBody): Promise<WithdrawalLimit | undefined>;
  /** Sets a merchant's fee terms in a mode (bps null: the default); undefined for an unknown merchant. */
  fee(id: string, body: MerchantFeeBody): Promise<MerchantFee | undefined>;
}

class OperatorError extends Error {}

/**
 * The running service, over HTTP with the operator token. Only https off this machine: the
 * token must not travel in clear. (`local`: the address came from DATA_DIR's lock, written by a
 * service on this machine, whatever address it listens on.)
 */
function remote(url: string, token: string, local: boolean): Merchants {
  const base = url.replace(/\/+$/, '');
  const host = new URL(base).hostname;
  if (!local && !/^https:/.test(base) && !/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(host)) {
    throw new OperatorError(
      `SERVICE_URL: expected https:// for a service on another machine (the operator token must not travel in clear), received ${base.slice(0, 80)}`,
    );
  }
  const call = async (method: string, body?: unknown, path = ''): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(`${base}/operator/v1/merchants${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'x-operator': operatorName(), ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
        signal: AbortSignal.timeout(15_000),
      });
    } catch (error) {
      throw new OperatorError(
        `The service at ${base} does not answer (${(error as Error).message}). Nothing was changed. If it is starting, try again; if it is gone, its lock is stale and the next try works on the database directly.`,
      );
    }
    const reply = (await response.json().catch(() => ({}))) as { message?: string; data?: unknown };
    if (!response.ok) throw new OperatorError(`The service at ${base} refused (${response.status}): ${reply.message ?? 'no message'}`);
    return reply.data;
  };
  const check = <T>(schema: { safeParse(v: unknown): { success: boolean; data?: T } }, value: unknown): T => {
    const result = schema.safeParse(value);
    if (!result.success) throw new OperatorError(`The service at ${base} answered with an unexpected shape`);
    return result.data as T;
  };
  return {
    create: async (body) => check<CreatedMerchant>(CreatedMerchant, await call('POST', body)),
    list: async () => check<Merchant[]>(MerchantList, await call('GET')),
    rollSecretKeys: async (id) => check<RolledKeys>(RolledKeys, await call('POST', {}, `/${encodeURIComponent(id)}/secret-keys`)),
    signInLink: async (id) => check<SignInLink>(SignInLink, await call('POST', {}, `/${encodeURIComponent(id)}/sign-in-link`)),
    withdrawalLimit: async (id, body) => check<WithdrawalLimit>(WithdrawalLimit, await call('PUT', body, `/${encodeURIComponent(id)}/withdrawal-limits`)),
    fee: async (id, body) => check<MerchantFee>(MerchantFee, await call('PUT', body, `/${encodeURIComponent(id)}/fees`)),
  };
}

/** The database itself, for as long as `work` runs. */
async function direct<T>(config: Config, work: (merchants: Merchants) => Promise<T>): Promise<T> {
  const lock = config.dataDir && !config.databaseUrl ? lockDataDir(config.dataDir, 'command') : undefined;
  try {
    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: await schemaTemplate() });
    try {
      lock?.confirm();
      await migrate(db);
      const store = new MerchantStore(db, memberRole);
      const dashboard = new DashboardStore(db, config.accountLockoutFailures, merchantRows, { memberById, memberLogins, factorState });
      // The link is on PUBLIC_URL, where the service will be reached (this machine's port without one).
      const signInUrl = async (id: string) => {
        const token = await dashboard.issueLink(id, Date.now(), SIGN_IN_LINK_MS);
        return token && `${config.publicUrl ?? `http://127.0.0.1:${config.port}`}/dashboard/welcome#token=${token}`;
      };
      return await work({
        create: async (body) => {
          const m = await store.create({ businessName: body.name.trim(), businessEmail: body.email.trim(), businessLogo: body.logo ?? '' }, Date.now());
          return {
            id: m.id,
            businessName: m.businessName,
            businessEmail: m.businessEmail,
            keys: m.keys,
            webhookSecrets: m.webhookSecrets as CreatedMerchant['webhookSecrets'],
            signInUrl: await signInUrl(m.id),
          };
        },
        signInLink: async (id) => {
          const url = await signInUrl(id);
          return url === undefined ? undefined : { id, signInUrl: url };
        },
        list: () => store.list(),
        withdrawalLimit: async (id, body) => {
          const withdrawals = new WithdrawalStore(db, config.withdrawalDailyLimit, { merchants: merchantRows, payoutsSpentSince, refundsSpentSince });
          const owner = { merchant: { id } as Merchant, mode: body.mode };
          if (!(await withdrawals.setWithdrawalLimit(owner, body.daily, Date.now()))) return undefined;
          const now = await withdrawals.withdrawalLimit(owner);
          return { id, mode: body.mode, currency: 'USD', daily: now.daily, default: !now.set };
        },
        fee: async (id, body) => {
          const fees = new FeeStore(db, { bps: config.feeBps, bearer: config.feeBearer });
          if (!(await fees.set(id, body.mode, body.bps === null ? null : { bps: body.bps, bearer: body.bearer ?? 'customer' }, Date.now()))) return undefined;
          const now = await fees.terms(id, body.mode);
          return { id, mode: body.mode, bps: now.bps, bearer: now.bearer, default: !now.own };
        },
        rollSecretKeys: async (id) => {
          const secretKeys = await store.rollSecretKeys(id, Date.now());
          return secretKeys && { id, secretKeys };
        },
      });
    } finally {
      await db.close();
    }
  } finally {
    lock?.release();
  }
}

/** Runs `work` against the running service when there is one, else on the database. */
async function withMerchants<T>(config: Config, work: (merchants: Merchants) => Promise<T>): Promise<T> {
  const held = config.dataDir && !config.databaseUrl ? heldLock(config.dataDir) : undefined;
  const url = config.serviceUrl ?? (held?.role === 'service' ? held.url : undefined);
  if (url) {
    const token = config.adminToken ?? readTokenFile(config.stateDir);
    if (!token) {
      throw new OperatorError(
        `The service at ${url} is running, and this command has no operator token to reach it: set ADMIN_TOKEN to the service's, or run the command as the user who owns ${config.stateDir}/operator-token`,
      );
    }
    return work(remote(url, token, !config.serviceUrl));
  }
  if (held) throw new DataDirLocked(config.dataDir!, held); // a command, or a service not listening yet
  return direct(config, work);
}

export async function runOperatorCommand(args: string[], config: Config, out: (line: string) => void = console.log): Promise<number> {
  const [noun, verb] = args;
  const json = args.includes('--json');
  if (isHelp(args)) {
    out(helpText());
    return 0;
  }
  if (noun !== 'merchant' || !verbsOf('merchant').includes(verb ?? '')) {
    out(USAGE);
    return 2;
  }
  let body: { name: string; email: string; logo?: string } | undefined;
  if (verb === 'create') {
    // The same schema the service checks its operator endpoint with, each field named as its option.
    const input = {
      name: option(args, 'name') ?? '',
      email: option(args, 'email')?.trim() ?? '',
      ...(option(args, 'logo') ? { logo: option(args, 'logo') } : {}),
    };
    const parsed = MerchantCreateBody.safeParse(input, { reportInput: true });
    if (!parsed.success) {
      fieldErrors(parsed.error).forEach((e) => out(`--${e.field}: expected ${e.message.replace(/^expected /, '')}`));
      out(USAGE);
      return 2;
    }
    body = parsed.data;
  }
  let limit: WithdrawalLimitBody | undefined;
  if (verb === 'withdrawal-limit') {
    // The operator endpoint's schema, each field named as its option.
    const daily = option(args, 'daily');
    const parsed = WithdrawalLimitBody.safeParse({ mode: option(args, 'mode'), daily: daily === 'default' ? null : daily }, { reportInput: true });
    if (!parsed.success) {
      fieldErrors(parsed.error).forEach((e) => out(`--${e.field}: expected ${e.message.replace(/^expected /, '')}`));
      out(USAGE);
      return 2;
    }
    limit = parsed.data;
  }
  let fee: MerchantFeeBody | undefined;
  if (verb === 'fee') {
    // The operator endpoint's schema, each field named as its option.
    const bps = option(args, 'bps');
    const bearer = option(args, 'bearer');
    const parsed = MerchantFeeBody.safeParse(
      {
        mode: option(args, 'mode'),
        bps: bps === 'default' ? null : bps !== undefined && /^\d{1,4}$/.test(bps) ? Number(bps) : bps,
        ...(bearer !== undefined ? { bearer } : {}),
      },
      { reportInput: true },
    );
    if (!parsed.success) {
      fieldErrors(parsed.error).forEach((e) => out(`--${e.field}: expected ${e.message.replace(/^expected /, '')}`));
      out(USAGE);
      return 2;
    }
    fee = parsed.data;
  }
  const id = option(args, 'id') ?? '';
  if (
    (verb === 'roll-keys' || verb === 'sign-in-link' || verb === 'withdrawal-limit' || verb === 'fee') &&
    !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)
  ) {
    out(`--id: expected a merchant id (a UUID, as merchant list shows), received ${JSON.stringify(id.slice(0, 40))}`);
    out(USAGE);
    return 2;
  }
  try {
    return await withMerchants(config, async (merchants) => {
      if (verb === 'list') {
        const all = await merchants.list();
        if (json) out(JSON.stringify(all));
        else all.forEach((m) => out(`${m.id}  ${m.businessName} <${m.businessEmail}>`));
        return 0;
      }
      if (verb === 'roll-keys') {
        const rolled = await merchants.rollSecretKeys(id);
        if (!rolled) throw new OperatorError(`No merchant ${id}: merchant list shows their ids`);
        if (json) out(JSON.stringify(rolled));
        else {
          out(`New secret keys for ${id}. Keep these now: they are not shown again, and the old ones no longer work.`);
          for (const mode of ['test', 'live'] as const) out(`  ${mode} secret key      ${rolled.secretKeys[mode]}`);
        }
        return 0;
      }
      if (verb === 'withdrawal-limit') {
        const set = await merchants.withdrawalLimit(id, limit!);
        if (!set) throw new OperatorError(`No merchant ${id}: merchant list shows their ids`);
        if (json) out(JSON.stringify(set));
        else
          out(
            `${id} may now withdraw at most ${set.daily} USD (withdrawals and bank payouts, all coins and networks together) in any 24 hours with its ${set.mode} keys${set.default ? " (the service's default)" : ''}.`,
          );
        return 0;
      }
      if (verb === 'fee') {
        const set = await merchants.fee(id, fee!);
        if (!set) throw new OperatorError(`No merchant ${id}: merchant list shows their ids`);
        if (json) out(JSON.stringify(set));
        else
          out(
            `${id}'s new ${set.mode} payments now carry the operator's fee of ${set.bps} basis points (${set.bps / 100}%), ${set.bearer === 'customer' ? 'added to the price the customer pays' : 'deducted from what the merchant receives'}${set.default ? " (the service's default)" : ''}.`,
          );
        return 0;
      }
      if (verb === 'sign-in-link') {
        const link = await merchants.signInLink(id);
        if (!link) throw new OperatorError(`No merchant ${id}: merchant list shows their ids`);
        if (json) out(JSON.stringify(link));
        else {
          out(`A one-time sign-in link for ${id}'s owner, valid 24 hours (earlier links no longer work; the password changes when it is used):`);
          out(`  ${link.signInUrl}`);
          out(link.emailed ? "It was also e-mailed to the owner's sign-in address." : 'E-mail is off (no SMTP_URL): pass it on to the owner by hand.');
        }
        return 0;
      }
      const created = await merchants.create(body!);
      if (json) {
        out(JSON.stringify(created));
      } else {
        out(
          `Created ${created.businessName} (${created.id}). Keep these now: the service keeps only hashes of the secret keys, so they cannot be shown again.`,
        );
        for (const mode of ['test', 'live'] as const) {
          out(`  ${mode} public key      ${created.keys[mode].publicKey}`);
          out(`  ${mode} secret key      ${created.keys[mode].secretKey}`);
          out(`  ${mode} webhook secret  ${created.webhookSecrets[mode]}`);
        }
        if (created.signInUrl) out(`  dashboard sign-in    ${created.signInUrl}   (once, within 24 hours: the owner sets a password there)`);
      }
      return 0;
    });
  } catch (error) {
    if (error instanceof OperatorError || error instanceof DataDirLocked) {
      out(error.message);
      return 1;
    }
    throw error;
  }
}

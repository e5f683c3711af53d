// The service's own commands, for whoever runs it. `merchant create` makes a business with
// test and live keys and webhook secrets, printed this once: only hashes of keys are kept.
import { openDatabase } from './storage/db.ts';
import { MerchantStore } from './storage/merchants.ts';
import { migrate } from './storage/migrations.ts';
import type { Config } from './config.ts';

const USAGE = `usage: npm run service -- merchant create --name "Business name" --email orders@example.com [--logo https://…] [--json]
       npm run service -- merchant list [--json]`;

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : undefined;
}

export async function runOperatorCommand(args: string[], config: Config, out: (line: string) => void = console.log): Promise<number> {
  const [noun, verb] = args;
  const json = args.includes('--json');
  if (noun !== 'merchant' || (verb !== 'create' && verb !== 'list')) {
    out(USAGE);
    return 2;
  }
  const db = await openDatabase(config);
  try {
    await migrate(db);
    const merchants = new MerchantStore(db);
    if (verb === 'list') {
      const all = await merchants.list();
      if (json) out(JSON.stringify(all));
      else all.forEach((m) => out(`${m.id}  ${m.businessName} <${m.businessEmail}>`));
      return 0;
    }
    const name = option(args, 'name')?.trim();
    const email = option(args, 'email')?.trim();
    const logo = option(args, 'logo') ?? '';
    const problems = [];
    if (!name || name.length > 100) problems.push('--name: expected a business name of 1 to 100 characters');
    if (!email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) problems.push('--email: expected an e-mail address such as orders@example.com');
    if (logo && !/^https:\/\//.test(logo)) problems.push('--logo: expected an https:// URL');
    if (problems.length) {
      problems.forEach((p) => out(p));
      out(USAGE);
      return 2;
    }
    const created = await merchants.create({ businessName: name!, businessEmail: email!, businessLogo: logo }, Date.now());
    if (json) {
      out(JSON.stringify({ id: created.id, businessName: created.businessName, keys: created.keys, webhookSecrets: created.webhookSecrets }));
    } else {
      out(`Created ${created.businessName} (${created.id}). Keep these now: the secret keys are not shown again.`);
      for (const mode of ['test', 'live'] as const) {
        out(`  ${mode} public key      ${created.keys[mode].publicKey}`);
        out(`  ${mode} secret key      ${created.keys[mode].secretKey}`);
        out(`  ${mode} webhook secret  ${created.webhookSecrets[mode]}`);
      }
    }
    return 0;
  } finally {
    await db.close();
  }
}

// npm start (or npm run service): runs the service with its configuration from the
// environment. `npm run service -- merchant create --name "…" --email …` makes a merchant.
// Each command imports only what it runs: the service's whole module graph (service/app.ts) costs a
// command about a second of CPU it does not use (import app.js 1.5 CPU-s, operator.js 0.4).
import { configFromEnv } from './service/config.ts';

/** A setting that is wrong: one line saying which and what to do, exit code 1, no stack trace. */
function refuse(line: string): never {
  console.error(`service: cannot start: ${line}`);
  process.exit(1);
}

let config: ReturnType<typeof configFromEnv>;
try {
  config = configFromEnv();
} catch (error) {
  // configFromEnv names the setting in each of its messages (PORT: expected …).
  refuse((error as Error).message.split('\n')[0]);
}
const args = process.argv.slice(2);
if (args[0] === 'chain') {
  const { runChainCommand } = await import('./commands/chain.ts');
  process.exitCode = await runChainCommand(args.slice(1), config);
} else if (args[0] === 'treasury') {
  const { runTreasuryCommand } = await import('./commands/treasury.ts');
  process.exitCode = await runTreasuryCommand(args.slice(1), config);
} else if (args.length > 0) {
  const { runOperatorCommand } = await import('./commands/operator.ts');
  process.exitCode = await runOperatorCommand(args, config);
} else {
  const [{ startService }, { NetworkMismatch }, { createLogger }, { startupProblem }, { DataDirLocked }, { MigrationRefused }] = await Promise.all([
    import('./service/app.ts'),
    import('./chain/deploy.ts'),
    import('./service/log.ts'),
    import('./service/startup.ts'),
    import('./storage/lock.ts'),
    import('./storage/migrations.ts'),
  ]);
  const log = createLogger();
  if (config.demo)
    log.warn(
      'SEED_DEMO_MERCHANT=true: the demo merchant, whose keys (live ones too) are public in the README, can use this service. Never on one that others reach.',
    );
  const service = await startService({ ...config, logger: log }).catch((error: unknown) => {
    // Another process holds DATA_DIR: its own message names the setting and what to do.
    // So does a configured chain that is not what NETWORKS_FILE says (checked before anything is taken on it),
    // and a database whose applied migrations are not this version's (a migration file changed).
    const line =
      error instanceof DataDirLocked || error instanceof NetworkMismatch
        ? error.message
        : error instanceof MigrationRefused
          ? `database: ${error.message}`
          : startupProblem(error, config);
    if (line) refuse(line);
    throw error;
  });
  console.log(`Service listening on ${service.url} (database: ${service.db.kind}${config.dataDir ? ` in ${config.dataDir}` : ''})`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void service.close().then(() => process.exit(0)));
  }
}

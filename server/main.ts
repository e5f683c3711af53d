// npm start (or npm run service): runs the service with its configuration from the
// environment. `npm run service -- merchant create --name "…" --email …` makes a merchant.
import { startService } from './app.ts';
import { runOperatorCommand } from './operator.ts';
import { configFromEnv } from './config.ts';
import { createLogger } from './log.ts';

const args = process.argv.slice(2);
if (args.length > 0) {
  process.exitCode = await runOperatorCommand(args, configFromEnv());
} else {
  const log = createLogger();
  const config = configFromEnv();
  if (config.demo) log.warn('SEED_DEMO_MERCHANT=true: the demo merchant, whose keys (live ones too) are public in the README, can use this service. Never on one that others reach.');
  const service = await startService({ ...config, logger: log });
  console.log(`Service listening on ${service.url} (database: ${service.db.kind}${config.dataDir ? ` in ${config.dataDir}` : ''})`);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => void service.close().then(() => process.exit(0)));
  }
}

#!/usr/bin/env node
// The `service-checkout` command (the package's bin): see cli.ts.
import { runCli } from './cli.ts';

const stop = new AbortController();
process.once('SIGINT', () => stop.abort());
process.exitCode = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  signal: stop.signal,
  interactive: process.stdout.isTTY === true,
});
if (stop.signal.aborted) process.exit(process.exitCode);

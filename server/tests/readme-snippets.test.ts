// The README, exactly as written: its server walkthrough (a payment made with ServiceClient,
// the plain-Node webhook handler, `listen` and `trigger --wait`) runs in bash against a service
// on a dev chain, from a project that has the package installed, and prints what the README
// says it prints. The only changes made to the text: the service's and the handler's ports
// (4010 and 3000 are the README's; a test takes free ones).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../../devchain/anvil.ts';
import { deployDevContracts, devAccount, devNetwork } from '../../devchain/deploy.ts';
import { DEV_CHAIN_POWERS } from '../../devchain/sandbox.ts';
import { startService, type Service } from '../service/app.ts';
import { fromRoot } from '../service/paths.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';

const README = readFileSync(fromRoot('README.md'), 'utf8');

/** The fenced block of `lang` that follows `after` in the README. */
function block(after: string, lang: string): string {
  const at = README.indexOf(after);
  expect(at, `the README has "${after}"`).toBeGreaterThan(-1);
  const open = README.indexOf('```' + lang + '\n', at);
  return README.slice(open + lang.length + 4, README.indexOf('\n```', open));
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

let chain: DevChain;
let api: Service;
let project: string;
beforeAll(async () => {
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  const contracts = await deployDevContracts(chain, 3);
  api = await startService({ demo: true, networks: { test: devNetwork(chain.url, contracts, 2) }, devChain: DEV_CHAIN_POWERS, watchIntervalMs: 200 });
  // As `npm run demo` does: the demo merchant's deposits are swept to dev account 9.
  await api.parts.merchants.setPayoutAddress(DEMO_MERCHANT.id, 'test', chain.chainId, devAccount(9).address);
  // A merchant's project with the package installed: node_modules/service-checkout is this
  // repository (built), and its command is on npx's path, as `npm install <tarball>` leaves them.
  project = mkdtempSync(join(tmpdir(), 'readme-project-'));
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(fromRoot(''), join(project, 'node_modules', 'service-checkout'), 'dir');
  writeFileSync(join(project, 'node_modules', '.bin', 'service-checkout'), `#!/bin/sh\nexec node ${fromRoot('build/sdk/cli/main.js')} "$@"\n`, { mode: 0o755 });
  writeFileSync(join(project, 'package.json'), '{ "name": "shop", "private": true, "type": "module" }\n');
}, 120_000);
afterAll(async () => {
  await api?.close();
  await chain?.stop();
  if (project) rmSync(project, { recursive: true, force: true });
});

describe('the README, run as written', () => {
  it('the server walkthrough: the payment, the plain-Node handler, listen and trigger --wait print what the README says', { timeout: 120_000 }, async () => {
    const handlerPort = String(await freePort());
    const apiPort = new URL(api.url).port;
    const handler = block('A handler in plain Node (no framework)', 'js');
    expect(handler).not.toMatch(/express/);
    writeFileSync(join(project, 'webhook-handler.mjs'), handler.replaceAll('3000', handlerPort));
    const walkthrough = block('**A server.**', 'sh').replaceAll('3000', handlerPort).replaceAll('4010', apiPort);
    // Typed as a person would: each line once the one before is under way. The walkthrough up
    // to `trigger` runs first (its `&` lines keep running); `trigger` once `listen` says it listens.
    const lines = walkthrough.trimEnd().split('\n');
    const trigger = lines.pop()!;
    expect(trigger).toMatch(/^npx service-checkout trigger deposit order-1 full --wait$/);
    const exports = lines.filter((line) => line.startsWith('export '));
    // The CLI takes the service's address from SERVICE_API_URL, as its --help and the README say.
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? project, SERVICE_API_URL: api.url, npm_config_update_notifier: 'false' };
    let out = '';
    const shells: ReturnType<typeof spawn>[] = [];
    const shell = (script: string) => {
      const run = spawn('bash', ['-c', script], { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      run.stdout!.on('data', (chunk) => (out += chunk));
      run.stderr!.on('data', (chunk) => (out += chunk));
      shells.push(run);
      return run;
    };
    const until = async (done: () => boolean, ms: number) => {
      const end = Date.now() + ms;
      while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 100));
    };
    try {
      shell(lines.join('\n') + '\nwait');
      await until(() => out.includes('Forwarding new events') && out.includes('listening on'), 60_000);
      shell([...exports, trigger].join('\n'));
      await until(() => out.includes('order-1 paid:') && out.includes('Confirmed: order-1'), 60_000);
      const printed = out.split('\n');
      if (process.env.SHOW_README_RUN) console.log(out);
      // The payment, as ServiceClient printed it.
      expect(out).toMatch(/reference: 'order-1'/);
      expect(out).toMatch(/cryptoAmount: 24\.5/);
      // trigger --wait: what the README quotes, in order (how much is confirming shows once the transfer is in a block).
      const sent = printed.findIndex((l) => l.startsWith('Deposit sent: order-1 is pending, 0 of 24.5 USDT paid'));
      expect(sent, out).toBeGreaterThan(-1);
      expect(printed[sent]).toMatch(
        /^Deposit sent: order-1 is pending, 0 of 24\.5 USDT paid(, 24\.5 USDT confirming \(\d of 2 confirmations\))?; waiting until it is confirmed…$/,
      );
      expect(printed.slice(sent), out).toContain('Confirmed: order-1 is confirmed, 24.5 of 24.5 USDT paid');
      // The handler got the event from listen, verified it, and paid the order at its price.
      // A failure shows everything the three commands printed (what listen forwarded, and its answers).
      expect(printed, out).toContain(`listening on http://localhost:${handlerPort}/webhooks`);
      expect(printed, out).toContain('order-1 paid: 24.5 USDT (confirmed)');
      expect(out).not.toMatch(/is not the order's price|Error|refused/);
      // And the README says exactly these.
      const prose = README.replace(/\s+/g, ' ');
      for (const said of [
        'Deposit sent: order-1 is pending, 0 of 24.5 USDT paid; waiting until it is confirmed…',
        'Confirmed: order-1 is confirmed, 24.5 of 24.5 USDT paid',
        'order-1 paid: 24.5 USDT (confirmed)',
        "reference: 'order-1'",
        'cryptoAmount: 24.5',
      ]) {
        expect(prose).toContain(`\`${said}`);
      }
    } finally {
      for (const run of shells) {
        try {
          process.kill(-run.pid!, 'SIGTERM');
        } catch {
          /* already gone */
        }
      }
    }
  });

  it('the plain page: the script it loads is served where it says', async () => {
    const page = block('**A plain page.**', 'html');
    const src = /<script src="([^"]+)"><\/script>/.exec(page)![1];
    expect(src).toBe('http://127.0.0.1:4010/checkout.js');
    const script = await fetch(src.replace('http://127.0.0.1:4010', api.url));
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/javascript/);
    expect(page).toContain("key: 'pk_test_harbour0demo0key'");
  });
});

// `npm run service -- --help` lists every command of the operator's command line: the help is
// made from the command table, and the commands the dispatchers run are the table's.
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { runChainCommand } from '../commands/chain.ts';
import { COMMANDS, helpText, verbsOf } from '../commands/index.ts';
import type { Config } from '../service/config.ts';
import { runOperatorCommand } from '../commands/operator.ts';

it('--help, -h and help print every command of the table, and exit 0', async () => {
  for (const flag of ['--help', '-h', 'help']) {
    const lines: string[] = [];
    expect(await runOperatorCommand([flag], {} as Config, (line) => lines.push(line))).toBe(0);
    expect(lines.join('\n')).toBe(helpText());
    const listed = [...lines.join('\n').matchAll(/^ {2}npm run service --(.*)$/gm)].map((m) => m[1]!.trim());
    expect(listed).toHaveLength(COMMANDS.length);
    COMMANDS.forEach((c, i) => expect(listed[i]!.startsWith(c.command), `${c.command} in "${listed[i]}"`).toBe(true));
  }
  expect(COMMANDS.map((c) => c.command)).toEqual(
    expect.arrayContaining([
      '',
      'merchant create',
      'merchant list',
      'merchant roll-keys',
      'merchant sign-in-link',
      'merchant withdrawal-limit',
      'chain deploy',
      'chain sweep',
      'help',
    ]),
  );
});

it('runs no command that the table leaves out, and every one it names', async () => {
  const usage = async (args: string[]) => {
    const lines: string[] = [];
    const code = await runOperatorCommand(args, {} as Config, (line) => lines.push(line));
    return { code, lines };
  };
  // An unknown merchant verb is the usage alone; a known one checks its own options first.
  expect((await usage(['merchant', 'delete'])).lines).toHaveLength(1);
  for (const verb of verbsOf('merchant').filter((v) => v !== 'list')) {
    const { code, lines } = await usage(['merchant', verb, '--id', 'nope', '--mode', 'nope']);
    expect(code, verb).toBe(2);
    expect(lines.length, `${verb}: ${lines.join(' | ')}`).toBeGreaterThan(1);
  }
  const err: string[] = [];
  expect(
    await runChainCommand(
      ['undeploy'],
      undefined,
      () => {},
      (line) => err.push(line),
    ),
  ).toBe(2);
  expect(verbsOf('chain').sort()).toEqual(['deploy', 'sweep']);
  // The dispatchers read the table: no verb list of their own.
  for (const file of ['../commands/operator.ts', '../commands/chain.ts']) expect(readFileSync(new URL(file, import.meta.url), 'utf8')).toMatch(/verbsOf\(/);
});

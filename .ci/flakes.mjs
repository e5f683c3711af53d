// Finds the tests that fail by chance: runs the chain and process test files (and, with --e2e,
// the Playwright specs) several times in a row, optionally beside a CPU hog, and lists every
// test that failed at least once, with how often and its first assertion. Exits 1 if any did.
//   node .ci/flakes.mjs [--runs 5] [--hog] [--e2e] [files...]
// Nothing is retried: a test that fails once here is a race to fix, not a run to repeat.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir, availableParallelism } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { runs: { type: 'string', default: '5' }, hog: { type: 'boolean', default: false }, e2e: { type: 'boolean', default: false } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('flakes: --runs takes a whole number of at least 1');
  process.exit(2);
}
// The chain test files live beside their feature (chain/, balances/, refunds/, payments/, …): each
// service test file that imports the dev chain is one.
const testFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
  );
const chainTests = () => testFiles('server').filter((file) => /from '(\.\.\/)+devchain\//.test(readFileSync(file, 'utf8')));
const files = positionals.length ? positionals : [...chainTests(), 'server/tests/processes.test.ts', 'server/tests/operator.test.ts'];
const out = mkdtempSync(join(tmpdir(), 'service-flakes-'));

// The hog: one busy process a core, so each test file gets less of the machine than CI gives it.
const hogs = values.hog ? Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' })) : [];
const stopHogs = () => hogs.forEach((h) => h.kill('SIGKILL'));
process.on('exit', stopHogs);

const failures = new Map(); // test name -> { count, message }
const seen = (name, message) => {
  const known = failures.get(name) ?? { count: 0, message };
  known.count++;
  failures.set(name, known);
};
for (let run = 1; run <= runs; run++) {
  const started = Date.now();
  const report = join(out, `unit-${run}.json`);
  spawnSync('npx', ['vitest', 'run', '--project', 'service', '--reporter=dot', '--reporter=json', `--outputFile.json=${report}`, ...files], {
    stdio: 'ignore',
  });
  let unit;
  try {
    unit = JSON.parse(readFileSync(report, 'utf8'));
  } catch {
    seen('(the unit run itself)', 'vitest wrote no report');
    continue;
  }
  for (const file of unit.testResults) {
    const name = relative(process.cwd(), file.name);
    if (file.status === 'failed' && file.assertionResults.every((t) => t.status !== 'failed')) seen(`${name} (its set-up)`, file.message.split('\n')[0]);
    for (const t of file.assertionResults) if (t.status === 'failed') seen(`${name} > ${t.fullName}`, (t.failureMessages[0] ?? '').split('\n')[0]);
  }
  if (values.e2e) {
    const e2eReport = join(out, `e2e-${run}.json`);
    spawnSync('npx', ['playwright', 'test', '--reporter=json'], { stdio: 'ignore', env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: e2eReport } });
    try {
      const e2e = JSON.parse(readFileSync(e2eReport, 'utf8'));
      const walk = (suite) => {
        for (const spec of suite.specs ?? [])
          for (const t of spec.tests ?? [])
            for (const r of t.results ?? [])
              if (r.status !== 'passed' && r.status !== 'skipped') seen(`${spec.file} > ${spec.title}`, (r.error?.message ?? r.status).split('\n')[0]);
        for (const inner of suite.suites ?? []) walk(inner);
      };
      for (const suite of e2e.suites ?? []) walk(suite);
    } catch {
      seen('(the e2e run itself)', 'playwright wrote no report');
    }
  }
  console.log(`run ${run} of ${runs}: ${Math.round((Date.now() - started) / 1000)} s, ${failures.size} test(s) failed so far`);
}
stopHogs();
if (failures.size === 0) {
  console.log(`flakes: no test failed in ${runs} run(s)${values.hog ? ' beside the hog' : ''}`);
  process.exit(0);
}
// biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's colour codes (ESC [ ... m), stripped from messages
const COLOUR_CODES = /\u001b\[[0-9;]*m/g;
console.log(`\n| test | failed | first assertion |\n|---|---|---|`);
for (const [name, { count, message }] of [...failures].sort((a, b) => b[1].count - a[1].count)) {
  console.log(`| ${name} | ${count} of ${runs} | ${message.replace(/\|/g, '\\|').replace(COLOUR_CODES, '').slice(0, 200)} |`);
}
process.exit(1);

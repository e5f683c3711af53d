// Adds up the unit (vitest) and e2e (Playwright) reports into one closing line, and fails
// when a suite ran no test or left one skipped: a green run must have tested something.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

function read(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    console.error(`summary: ${path} is missing; did that suite run?`);
    process.exit(1);
  }
}

const unit = read('reports/unit.json');
const e2e = read('reports/e2e.json');
const suites = [
  { name: 'unit', passed: unit.numPassedTests, failed: unit.numFailedTests, skipped: unit.numPendingTests + unit.numTodoTests },
  { name: 'e2e', passed: e2e.stats.expected + e2e.stats.flaky, failed: e2e.stats.unexpected, skipped: e2e.stats.skipped },
];
let bad = false;
for (const s of suites) {
  console.log(`${s.name}: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped`);
  if (s.passed === 0 || s.failed > 0 || s.skipped > 0) bad = true;
}
// Where the time went: the ten slowest files of each suite, and every test that came within
// half of its time limit (the next to fail by timing on a loaded machine: see .ci/flakes.mjs).
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const unitFiles = unit.testResults.map((f) => ({ name: relative(process.cwd(), f.name), ms: f.endTime - f.startTime }));
const e2eFiles = new Map();
const e2eTests = [];
const walk = (suite) => {
  for (const spec of suite.specs ?? []) {
    for (const t of spec.tests ?? []) {
      const ms = (t.results ?? []).reduce((sum, r) => sum + (r.duration ?? 0), 0);
      e2eFiles.set(spec.file, (e2eFiles.get(spec.file) ?? 0) + ms);
      e2eTests.push({ name: `${spec.file} > ${spec.title}`, ms, limit: t.timeout ?? 30_000 });
    }
  }
  for (const inner of suite.suites ?? []) walk(inner);
};
for (const suite of e2e.suites ?? []) walk(suite);
// Each suite's wall time, start to end (the unit report's files end after its startTime).
const unitWall = Math.max(...unit.testResults.map((f) => f.endTime)) - unit.startTime;
console.log(`wall time: unit ${seconds(unitWall)} (${unit.testResults.length} files), e2e ${seconds(e2e.stats.duration)}`);
const slowest = (rows) => rows.sort((a, b) => b.ms - a.ms).slice(0, 10);
console.log('slowest unit files:');
for (const f of slowest(unitFiles)) console.log(`  ${seconds(f.ms).padStart(8)}  ${f.name}`);
console.log('slowest e2e files (test time summed):');
for (const f of slowest([...e2eFiles].map(([name, ms]) => ({ name, ms })))) console.log(`  ${seconds(f.ms).padStart(8)}  ${f.name}`);
const unitLimit = 30_000; // vite.config.ts's testTimeout; a test that sets its own is judged against this too
const close = [
  ...unit.testResults.flatMap((f) =>
    f.assertionResults
      .filter((t) => (t.duration ?? 0) > unitLimit / 2)
      .map((t) => ({ name: `${relative(process.cwd(), f.name)} > ${t.fullName}`, ms: t.duration })),
  ),
  ...e2eTests.filter((t) => t.ms > t.limit / 2),
];
if (close.length) {
  console.log('tests over half of a time limit:');
  for (const t of slowest(close)) console.log(`  ${seconds(t.ms).padStart(8)}  ${t.name}`);
}

// And every unit file that took over twice its usual time (.ci/durations.json, a fresh-clone CI
// run's, which orders the run) and 10 s more: slowed by chance today, it is the one to fail by
// timing tomorrow. A file not listed there has no usual time yet.
let usual = {};
try {
  usual = JSON.parse(readFileSync('.ci/durations.json', 'utf8'));
} catch {
  console.log('summary: no .ci/durations.json, so no usual times to compare with');
}
const slowed = unitFiles.filter((f) => typeof usual[f.name] === 'number' && f.ms / 1000 > 2 * usual[f.name] && f.ms / 1000 - usual[f.name] > 10);
if (slowed.length) {
  console.log('unit files over twice their usual time:');
  for (const f of slowest(slowed)) console.log(`  ${seconds(f.ms).padStart(8)}  ${f.name} (usually ${usual[f.name]} s)`);
}

const passed = suites.reduce((n, s) => n + s.passed, 0);
const failed = suites.reduce((n, s) => n + s.failed, 0);
console.log(`tests: ${passed} passed, ${failed} failed`);
if (bad) {
  console.error('summary: a suite failed, skipped a test, or ran none');
  process.exit(1);
}

// Adds up the unit (vitest) and e2e (Playwright) reports into one closing line, and fails
// when a suite ran no test or left one skipped: a green run must have tested something.
import { readFileSync } from 'node:fs';

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
const passed = suites.reduce((n, s) => n + s.passed, 0);
const failed = suites.reduce((n, s) => n + s.failed, 0);
console.log(`tests: ${passed} passed, ${failed} failed`);
if (bad) {
  console.error('summary: a suite failed, skipped a test, or ran none');
  process.exit(1);
}

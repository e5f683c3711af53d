// Writes .ci/durations.json, the unit files' times that .ci/longest-first.ts orders the run by,
// from the last run's reports/unit.json (take them from a CI run on a fresh clone).
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const unit = JSON.parse(readFileSync(process.argv[2] ?? 'reports/unit.json', 'utf8'));
const root = process.argv[3] ?? process.cwd();
const rows = unit.testResults
  .map((f) => [relative(root, f.name), Math.round((f.endTime - f.startTime) / 100) / 10])
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
writeFileSync(new URL('./durations.json', import.meta.url), `${JSON.stringify(Object.fromEntries(rows), null, 2)}\n`);
console.log(`durations: ${rows.length} files, ${rows.reduce((sum, [, s]) => sum + s, 0).toFixed(0)} s summed`);

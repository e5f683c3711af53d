// The walls boundaries.test.ts keeps, as biome.jsonc's noRestrictedImports rules (what an editor
// shows as one types and `npm run lint` refuses): files planted at real paths of the tree, in a
// copy of the configuration, are flagged exactly on the imports that cross a wall.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../service/paths.ts';

/** Each planted file's imports; a trailing `// wall` marks the lines the rules must flag. */
const PLANTED: Record<string, string[]> = {
  'src/ui/planted.ts': ["import '../../server/service/app.ts'; // wall", "import '../../contract/api.ts';", "import './Modal.tsx';"],
  'dashboard/screens/planted.ts': ["import '../../sdk/index.ts'; // wall", "import '../../contract/api.ts';", "import '../api.ts';"],
  'sdk/cli/planted.ts': ["import '../../devchain/anvil.ts'; // wall", "import '../client.ts';"],
  'contract/planted.ts': ["import '../server/service/app.ts'; // wall", "import './money.ts';"],
  'server/payments/planted.ts': [
    "import '../../devchain/anvil.ts'; // wall",
    "import '../../dashboard/api.ts'; // wall",
    "import '../../src/index.ts'; // wall",
    "import 'pg'; // wall",
    "import '../dashboard/store.ts';",
    "import './store.ts';",
  ],
  'server/tests/planted.ts': ["import '../../devchain/anvil.ts';", "import '../../src/index.ts'; // wall", "import 'pg';"],
  'server/payments/planted-rules.ts': [
    "import './store.ts'; // wall",
    "import 'node:fs'; // wall",
    "import './rules.ts';",
    "import '../domain/errors.ts';",
    "import '../../contract/api.ts';",
    "import 'node:crypto';",
    "import 'zod/mini';",
  ],
  'server/domain/planted.ts': [
    "import './errors.ts';",
    "import 'node:http'; // wall",
    "import '../payments/store.ts'; // wall",
    "import '../../contract/api.ts';",
  ],
  'server/http/planted.ts': ["import '../api/context.ts'; // wall", "import '../storage/db.ts'; // wall", "import './respond.ts';"],
  'server/storage/planted.ts': ["import 'node:http'; // wall", "import '../http/respond.ts'; // wall", "import 'pg';"],
  'server/payments/planted-views.ts': ["import '../storage/db.ts'; // wall", "import './store.ts'; // wall", "import './rules.ts';"],
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** The `file:line` of each import Biome's noRestrictedImports flags, planted in a copy of biome.jsonc. */
function flagged(planted: Record<string, string[]>): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'lint-walls-'));
  dirs.push(dir);
  copyFileSync(fromRoot('biome.jsonc'), join(dir, 'biome.jsonc'));
  for (const [file, lines] of Object.entries(planted)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), `${lines.join('\n')}\n`);
  }
  let out: string;
  try {
    out = execFileSync(fromRoot('node_modules/.bin/biome'), ['lint', '--vcs-enabled=false', '--only=style/noRestrictedImports', '--reporter=json', '.'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    out = (error as { stdout: string }).stdout; // exit code 1: something was flagged
  }
  const report = JSON.parse(out) as { diagnostics: { category: string; location: { path: string; start: { line: number } } }[] };
  return [
    ...new Set(report.diagnostics.filter((d) => d.category === 'lint/style/noRestrictedImports').map((d) => `${d.location.path}:${d.location.start.line}`)),
  ].sort();
}

describe("biome.jsonc's import walls", () => {
  it('flag the imports that cross a wall and no other', { timeout: 60_000 }, () => {
    const expected = Object.entries(PLANTED)
      .flatMap(([file, lines]) => lines.flatMap((line, i) => (line.endsWith('// wall') ? [`${file}:${i + 1}`] : [])))
      .sort();
    expect(expected.length).toBeGreaterThan(15);
    expect(flagged(PLANTED)).toEqual(expected);
  });
});

// The dashboard redefined answer shapes the contract has. Each schema the dashboard
// parses an answer with is now held to the contract's shape of that answer in
// dashboard/contract-shapes.ts (type-only; `npm run typecheck` fails when they part). This test
// holds the list there complete: a new schema in a screen without its line there fails here.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../service/paths.ts';

const sources = (dir: string): string[] =>
  readdirSync(fromRoot(dir), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? sources(join(dir, e.name))
      : /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && e.name !== 'vite.config.ts'
        ? [join(dir, e.name)]
        : [],
  );

/** The answer schemas a file declares: `const X = z.object(`, exported or not. */
const schemasIn = (text: string) => [...text.matchAll(/^(export )?const (\w+) = z\.object\(/gm)].map((m) => ({ name: m[2], exported: Boolean(m[1]) }));

/** Which `typeof module.X` the check file holds, as "module.X". */
const heldIn = (text: string) => new Set([...text.matchAll(/Covers<typeof (\w+)\.(\w+),/g)].map((m) => `${m[1]}.${m[2]}`));

describe("the dashboard's answer schemas are held to the contract's", () => {
  const check = readFileSync(fromRoot('dashboard/contract-shapes.ts'), 'utf8');
  // "import type * as events from './screens/Events.tsx'": the module's alias, by its file.
  const alias = new Map([...check.matchAll(/import type \* as (\w+) from '\.\/([^']+)'/g)].map((m) => [join('dashboard', m[2]), m[1]]));

  it('finds schemas and held lines in text (the check can fail)', () => {
    expect(schemasIn('const Feed = z.object({ a: int });\nexport const Qr = z.object({});\nconst n = 1;')).toEqual([
      { name: 'Feed', exported: false },
      { name: 'Qr', exported: true },
    ]);
    expect([...heldIn('  qr: Covers<typeof links.Qr, X>;')]).toEqual(['links.Qr']);
    expect(alias.size).toBeGreaterThan(5);
  });

  it('every schema of a screen is exported and has its line in dashboard/contract-shapes.ts', () => {
    const held = heldIn(check);
    const missing = sources('dashboard')
      .filter((file) => file !== join('dashboard', 'contract-shapes.ts'))
      .flatMap((file) =>
        schemasIn(readFileSync(fromRoot(file), 'utf8')).flatMap(({ name, exported }) =>
          !exported
            ? [`${file}: ${name} is not exported`]
            : !held.has(`${alias.get(file)}.${name}`)
              ? [`${file}: ${name} is not held to a contract shape`]
              : [],
        ),
      );
    expect(held.size).toBeGreaterThanOrEqual(15);
    expect(missing).toEqual([]);
  });
});

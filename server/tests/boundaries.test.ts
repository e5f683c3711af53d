// The architecture, held by a test: what each layer may import. Rules have no I/O; HTTP
// lives at the edge, SQL in storage; the widget never reaches into the service or the demo.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../paths.ts';

const ROOT = fromRoot('');

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return files(path);
    return /\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** Every import of a file: relative ones resolved to repository paths, packages by name. */
function imports(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => {
    const spec = m[1] ?? m[2];
    return spec.startsWith('.') ? relative(ROOT, resolve(dirname(join(ROOT, file)), spec)) : spec;
  });
}

function offenders(dir: string, forbidden: (target: string) => boolean): string[] {
  return files(dir).flatMap((file) => imports(file).filter(forbidden).map((target) => `${file} imports ${target}`));
}

describe('import boundaries', () => {
  it('finds the imports it checks (the check can fail)', () => {
    expect(imports('server/app.ts')).toContain('server/storage/db.ts');
    expect(offenders('server/routes', (t) => t.startsWith('server/storage/db'))).toEqual([]);
    expect(offenders('server', (t) => t === 'node:http').length).toBeGreaterThan(0);
  });

  it('src/ (the published package) never imports the service or the demo', () => {
    expect(offenders('src', (t) => t.startsWith('server/') || t.startsWith('demo/'))).toEqual([]);
  });

  it('the widget never imports the server SDK', () => {
    const widget = ['src/api', 'src/checkout', 'src/options', 'src/payment', 'src/ui', 'src/wire'];
    expect(widget.flatMap((dir) => offenders(dir, (t) => t.startsWith('src/server')))).toEqual([]);
  });

  it('the domain imports no HTTP, no storage, no database, and only the shared contract from src/', () => {
    const io = (t: string) =>
      /^node:(http|https|net|fs|fs\/promises|child_process)$/.test(t) ||
      /^(pg|@electric-sql\/pglite|busboy|pino)$/.test(t) ||
      /^server\/(http|storage|routes|jobs|realtime|views)\//.test(t) ||
      (t.startsWith('src/') && !t.startsWith('src/wire/'));
    expect(offenders('server/domain', io)).toEqual([]);
  });

  it('storage speaks SQL and nothing of HTTP; only storage opens a database', () => {
    expect(offenders('server/storage', (t) => t === 'node:http' || t.startsWith('server/http/') || t.startsWith('server/routes/'))).toEqual([]);
    const outside = ['server/domain', 'server/routes', 'server/views', 'server/http', 'server/jobs'];
    expect(outside.flatMap((dir) => offenders(dir, (t) => t === 'pg' || t === '@electric-sql/pglite'))).toEqual([]);
  });

  it('views only shape: no storage, no HTTP', () => {
    expect(offenders('server/views', (t) => /^server\/(storage|http|routes)\//.test(t) || t === 'node:http')).toEqual([]);
  });
});

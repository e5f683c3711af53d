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
    // A file of ours outside contract/ is caught: the rules below would see a wrong import.
    expect(offenders('server/routes', (t) => t.startsWith('contract/')).length).toBeGreaterThan(0);
    expect(imports('src/index.ts').some((t) => t.startsWith('src/'))).toBe(true);
  });

  const ours = (t: string) => /^(contract|src|sdk|server|demo|e2e|devchain|contracts|dashboard)\//.test(t);
  const outside = (dir: string) => (t: string) => ours(t) && !t.startsWith(`${dir}/`);

  it('contract/ imports nothing of ours: every side may import it, and it leans on none', () => {
    expect(offenders('contract', (t) => ours(t) && !t.startsWith('contract/'))).toEqual([]);
  });

  it('src/ (the widget and its React/Vue faces) imports only the contract', () => {
    expect(offenders('src', (t) => outside('src')(t) && !t.startsWith('contract/'))).toEqual([]);
  });

  it('dashboard/ (the merchant\'s dashboard) imports only the contract, and the service never imports it', () => {
    expect(files('dashboard').length).toBeGreaterThan(3);
    expect(offenders('dashboard', (t) => outside('dashboard')(t) && !t.startsWith('contract/'))).toEqual([]);
    expect(['server', 'src', 'sdk'].flatMap((dir) => offenders(dir, (t) => t.startsWith('dashboard/')))).toEqual([]);
  });

  it('sdk/ (service-checkout/server and the command line) imports only the contract', () => {
    expect(offenders('sdk', (t) => outside('sdk')(t) && !t.startsWith('contract/'))).toEqual([]);
  });

  it('the service never imports the widget or the SDK', () => {
    expect(offenders('server', (t) => t.startsWith('src/') || t.startsWith('sdk/'))).toEqual([]);
  });

  it('production code never imports the dev chain: only the demo and the tests hold its powers', () => {
    expect(['contract', 'src', 'sdk', 'server', 'contracts'].flatMap((dir) => offenders(dir, (t) => t.startsWith('devchain/')))).toEqual([]);
  });

  it('the domain imports no HTTP, no storage, no database: only the contract and itself', () => {
    const io = (t: string) =>
      /^node:(http|https|net|fs|fs\/promises|child_process)$/.test(t) ||
      /^(pg|@electric-sql\/pglite|busboy|pino)$/.test(t) ||
      /^server\/(http|storage|routes|jobs|realtime|views)\//.test(t) ||
      (ours(t) && !t.startsWith('contract/') && !t.startsWith('server/domain/'));
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

// The service ships what it runs: its package is the service workspace's own
// (server/package.json: start script, bin, engines, dependencies), laid out by
// server/assemble.mjs with the compiled service and contract, the checkout and dashboard it
// serves, and a lock DERIVED from the root lock (no second lock kept by hand). In a clean
// folder it installs with `npm ci --omit=dev`, starts with `npm start` and serves /healthz,
// /checkout.js and the dashboard; and every library the compiled service imports is one of
// its package's dependencies, so a new import cannot ride on the repository's hoisted tools.
// Needs `npm run build`; npm installs from its cache (`--offline`), which the root `npm ci` filled.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../service/paths.ts';
import { spawnService, type ServiceProcess } from '../testing/process.ts';

type Manifest = {
  name: string;
  scripts: { start: string };
  bin: Record<string, string>;
  engines: unknown;
  dependencies: Record<string, string>;
  devDependencies?: unknown;
};
type Lock = {
  packages: Record<
    string,
    { version?: string; resolved?: string; integrity?: string; dev?: boolean; optional?: boolean; dependencies?: Record<string, string> }
  >;
};
const json = <T>(path: string) => JSON.parse(readFileSync(path, 'utf8')) as T;

const folders: string[] = [];
let pkg = '';
let again = '';
let running: ServiceProcess | undefined;
beforeAll(() => {
  const folder = mkdtempSync(join(tmpdir(), 'service-package-'));
  folders.push(folder);
  pkg = join(folder, 'service');
  again = join(folder, 'again');
  for (const out of [pkg, again]) execFileSync(process.execPath, [fromRoot('server/assemble.mjs'), out], { stdio: 'pipe' });
}, 120_000);
afterAll(async () => {
  await running?.kill();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}, 120_000);

/** The packages a folder's .js files import or require by name (not relative, not Node's own). */
function importedPackages(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const builtins = new Set(builtinModules);
  for (const file of readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js') && !f.startsWith('node_modules'))) {
    const source = readFileSync(join(dir, file), 'utf8');
    // from 'x', import 'x', import('x'), require('x'), createRequire(…)('x'), require.resolve('x')
    for (const [, , specifier] of source.matchAll(/(?:\bfrom|\bimport|\brequire|\.resolve|\))\s*\(?\s*(['"])([^'"\s]+)\1/g)) {
      if (specifier.startsWith('.') || specifier.startsWith('/') || specifier.startsWith('node:') || specifier.includes(':')) continue;
      const name = specifier
        .split('/')
        .slice(0, specifier.startsWith('@') ? 2 : 1)
        .join('/');
      if (!builtins.has(name)) found.set(name, file);
    }
  }
  return found;
}

describe("the service's package", () => {
  it("is the service workspace's manifest, without what only the repository needs", () => {
    const workspace = json<Manifest & { scripts: Record<string, string> }>(fromRoot('server/package.json'));
    const shipped = json<Manifest>(join(pkg, 'package.json'));
    expect(shipped.name).toBe('@service-checkout/service');
    expect(shipped.dependencies).toEqual(workspace.dependencies);
    expect(shipped.devDependencies).toBeUndefined();
    expect(shipped.engines).toEqual(workspace.engines);
    expect(shipped.scripts).toEqual({ start: 'node server/main.js' });
    for (const script of Object.values(shipped.bin)) expect(existsSync(join(pkg, script)), script).toBe(true);
    // The root (the published widget) no longer carries the service's libraries for it.
    const rootManifest = json<{ devDependencies: Record<string, string>; workspaces: string[] }>(fromRoot('package.json'));
    expect(rootManifest.workspaces).toContain('server');
    for (const library of ['pino', 'prom-client', 'busboy', 'qrcode', '@electric-sql/pglite'])
      expect(rootManifest.devDependencies[library], library).toBeUndefined();
  });

  it("has a lock derived from the root lock: the closure of its dependencies, each entry the root's, the same bytes every time", () => {
    const lock = json<Lock>(join(pkg, 'package-lock.json'));
    const root = json<Lock>(fromRoot('package-lock.json'));
    expect(readFileSync(join(again, 'package-lock.json'), 'utf8')).toBe(readFileSync(join(pkg, 'package-lock.json'), 'utf8'));
    expect(lock.packages[''].dependencies).toEqual(json<Manifest>(join(pkg, 'package.json')).dependencies);
    const installed = Object.entries(lock.packages).filter(([path]) => path !== '');
    expect(installed.length).toBeGreaterThan(20);
    for (const [path, entry] of installed) {
      const tested = root.packages[path] ?? root.packages[`server/${path}`];
      expect(tested, path).toBeDefined();
      expect([entry.version, entry.resolved, entry.integrity], path).toEqual([tested.version, tested.resolved, tested.integrity]);
      expect(entry.dev, path).toBeUndefined();
    }
    // Each package finds each of its dependencies at the version it finds in the root's tree
    // (Node's lookup: its own node_modules, then each folder above).
    const find = (packages: Lock['packages'], from: string, name: string): string | undefined => {
      for (let dir = from; ; dir = dir.includes('/node_modules/') ? dir.slice(0, dir.lastIndexOf('/node_modules/')) : '') {
        const candidate = `${dir ? `${dir}/` : ''}node_modules/${name}`;
        if (packages[candidate]) return candidate;
        if (dir === '') return undefined;
      }
    };
    for (const [path, entry] of Object.entries(lock.packages)) {
      const rootPath = path === '' ? 'server' : root.packages[path] ? path : `server/${path}`;
      for (const name of Object.keys(entry.dependencies ?? {})) {
        const tested = find(root.packages, rootPath, name);
        expect(lock.packages[find(lock.packages, path, name) ?? '']?.version, `${path || 'the package'} → ${name}`).toBe(root.packages[tested!]?.version);
      }
    }
    // Every library it names reaches the lock, and none of the repository's tools do.
    for (const name of Object.keys(lock.packages[''].dependencies!)) expect(lock.packages[`node_modules/${name}`], name).toBeDefined();
    for (const tool of ['vitest', 'playwright', 'typescript', 'vite', 'react', 'solc', 'preact'])
      expect(lock.packages[`node_modules/${tool}`], tool).toBeUndefined();
  });

  it('names every library the compiled service and contract import as a dependency, and no dependency it does not import', () => {
    const dependencies = Object.keys(json<Manifest>(join(pkg, 'package.json')).dependencies).sort();
    const imported = importedPackages(pkg); // all it ships: server/, contract/, contracts/, dist/
    const undeclared = [...imported].filter(([name]) => !dependencies.includes(name)).map(([name, file]) => `${name} (${file})`);
    expect(undeclared).toEqual([]);
    expect([...imported.keys()].sort()).toEqual(dependencies);
  });

  it('installs in a clean folder with npm ci --omit=dev, starts with npm start, and serves /healthz, checkout.js and the dashboard', {
    timeout: 240_000,
  }, async () => {
    const data = mkdtempSync(join(tmpdir(), 'service-package-data-'));
    folders.push(data);
    execFileSync('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], {
      cwd: pkg,
      stdio: 'pipe',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    // Only what it runs on: none of the repository's tools came along.
    for (const tool of ['vitest', 'playwright', 'typescript', 'vite', 'react', 'solc']) expect(existsSync(join(pkg, 'node_modules', tool)), tool).toBe(false);
    for (const library of ['pg', 'viem', 'pino', '@electric-sql/pglite']) expect(existsSync(join(pkg, 'node_modules', library)), library).toBe(true);
    const start = json<Manifest>(join(pkg, 'package.json')).scripts.start;
    expect(start).toBe('node server/main.js');
    running = await spawnService({ DATA_DIR: data, SEED_DEMO_MERCHANT: 'false', HOST: '127.0.0.1' }, join(pkg, 'server/main.js'));
    expect((await fetch(running.url + '/healthz')).status).toBe(200);
    const script = await fetch(running.url + '/checkout.js');
    expect(script.status).toBe(200);
    expect((await script.arrayBuffer()).byteLength).toBe(readFileSync(fromRoot('dist/checkout.js')).length);
    expect((await fetch(running.url + '/dashboard')).status).toBe(200);
    expect((await fetch(running.url + '/api/v1/openapi.json')).status).toBe(200);
  });
});

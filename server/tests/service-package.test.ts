// The service ships what it runs (issue 32): its package (apps/service: the compiled service
// and contract, the checkout and dashboard it serves, a manifest and lock naming only its
// runtime libraries), laid out in a clean folder, installs with `npm ci --omit=dev` and
// starts with `npm start` and serves /healthz, /checkout.js and the dashboard. The widget's
// package no longer has to carry the service's libraries for a production install to work.
// Needs `npm run build`; npm installs from its cache (`--offline`), which the root `npm ci` filled.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../paths.ts';
import { spawnService, type ServiceProcess } from '../testing/process.ts';

const folders: string[] = [];
let running: ServiceProcess | undefined;
afterAll(async () => {
  await running?.kill();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
}, 60_000);

const lockOf = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { packages: Record<string, { version?: string; dev?: boolean }> };

describe("the service's package", () => {
  it('pins the versions the repository is tested with: each library of its lock is the root lock\'s', () => {
    const service = lockOf(fromRoot('apps/service/package-lock.json'));
    const root = lockOf(fromRoot('package-lock.json'));
    // name@version for every package a lock installs, wherever it sits (viem's own ws, say).
    const installed = (lock: typeof root) => Object.entries(lock.packages).filter(([path]) => path.includes('node_modules/')).map(([path, entry]) => `${path.slice(path.lastIndexOf('node_modules/') + 13)}@${entry.version}`);
    const tested = new Set(installed(root));
    const differ = installed(service).filter((pkg) => !tested.has(pkg));
    expect(differ).toEqual([]);
    const manifest = JSON.parse(readFileSync(fromRoot('apps/service/package.json'), 'utf8')) as { dependencies: Record<string, string>; devDependencies?: unknown };
    expect(manifest.devDependencies).toBeUndefined();
    for (const [name, version] of Object.entries(manifest.dependencies)) expect(root.packages[`node_modules/${name}`]?.version, name).toBe(version);
  });

  it('installs in a clean folder with npm ci --omit=dev, starts with npm start, and serves /healthz, checkout.js and the dashboard', { timeout: 240_000 }, async () => {
    const folder = mkdtempSync(join(tmpdir(), 'service-package-'));
    const data = mkdtempSync(join(tmpdir(), 'service-package-data-'));
    folders.push(folder, data);
    const pkg = join(folder, 'service');
    execFileSync(process.execPath, [fromRoot('apps/service/assemble.mjs'), pkg], { stdio: 'pipe' });
    execFileSync('npm', ['ci', '--omit=dev', '--offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: pkg, stdio: 'pipe', env: { ...process.env, npm_config_update_notifier: 'false' } });
    // Only what it runs on: none of the repository's tools came along.
    for (const tool of ['vitest', 'playwright', 'typescript', 'vite', 'react', 'solc']) expect(existsSync(join(pkg, 'node_modules', tool)), tool).toBe(false);
    for (const library of ['pg', 'viem', 'pino', '@electric-sql/pglite']) expect(existsSync(join(pkg, 'node_modules', library)), library).toBe(true);
    const start = (JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
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

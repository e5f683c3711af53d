// The published package, as a merchant gets it: packed, checked by attw and publint, then
// installed in an empty directory and both required and imported. Needs `npm run build`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromRoot } from '../service/paths.ts';

const ROOT = fromRoot('');
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);
let work = '';
let tarball = '';

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'service-package-'));
  const name = execFileSync('npm', ['pack', '--silent', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  tarball = join(work, name);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the published package', { timeout: 120_000 }, () => {
  it('holds the bundle, its types, both module formats, the licence and the changelog; no source map, no tests, no service', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((f) => f.replace(/^package\//, ''));
    for (const wanted of [
      'LICENSE',
      'CHANGELOG.md',
      'README.md',
      'package.json',
      'dist/checkout.js',
      'dist/checkout.d.ts',
      'build/src/index.js',
      'build/sdk/index.js',
      'build/contract/schemas.js',
      'build/cjs/src/index.js',
      'build/cjs/sdk/index.js',
      'build/sdk/cli/main.js',
    ]) {
      expect(files, wanted).toContain(wanted);
    }
    expect(files.filter((f) => f.endsWith('.map'))).toEqual([]);
    expect(files.filter((f) => /\.test\.|\/testing\/|^build\/server\/|^build\/demo\/|^build\/e2e\//.test(f))).toEqual([]);
    const size = readFileSync(tarball).length;
    console.log(`package: ${files.length} files, ${size} bytes packed`);
  });

  it('passes @arethetypeswrong/cli with no problem, in every resolution mode', () => {
    const out = execFileSync(bin('attw'), [tarball, '--format', 'ascii'], { encoding: 'utf8' });
    expect(out).toContain('No problems found');
  });

  it('passes publint', () => {
    const out = execFileSync(bin('publint'), ['run', tarball], { cwd: work, encoding: 'utf8' });
    expect(out).toContain('All good');
  });

  it('installs in an empty directory, where require() and import both load the server SDK and the widget', () => {
    const app = join(work, 'app');
    execFileSync('mkdir', ['-p', app]);
    writeFileSync(join(app, 'package.json'), '{"name":"app","private":true}\n');
    execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', tarball], { cwd: app, encoding: 'utf8' });
    const required = execFileSync(
      process.execPath,
      [
        '-e',
        "const s = require('service-checkout/server'); const w = require('service-checkout'); console.log(typeof s.ServiceClient, typeof s.verifyWebhook, typeof w.ServiceCheckout)",
      ],
      { cwd: app, encoding: 'utf8' },
    );
    expect(required.trim()).toBe('function function function');
    const imported = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const s = await import('service-checkout/server'); const w = await import('service-checkout'); console.log(typeof s.ServiceClient, typeof s.verifyWebhook, typeof w.ServiceCheckout)",
      ],
      { cwd: app, encoding: 'utf8' },
    );
    expect(imported.trim()).toBe('function function function');
    const help = execFileSync(join(app, 'node_modules', '.bin', 'service-checkout'), ['--help'], { cwd: app, encoding: 'utf8' });
    expect(help).toMatch(/^usage: service-checkout/);
  });
});

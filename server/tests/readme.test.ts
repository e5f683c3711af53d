// The README links the API reference the service makes from its routes (no endpoint table
// anywhere: the routes are the one list), the architecture page's layout tree draws the folders
// the repository has, the README stays a five-minute read, and every relative link of the
// README and the docs names a file of the repository.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../service/paths.ts';
import { ROUTES } from '../api/table.ts';

const DOCS = readdirSync(fromRoot('docs'))
  .filter((f) => f.endsWith('.md'))
  .map((f) => `docs/${f}`);

describe('the README and docs/', () => {
  it('the README is at most 300 lines, and links every page of docs/', () => {
    const readme = readFileSync(fromRoot('README.md'), 'utf8');
    expect(readme.trimEnd().split('\n').length).toBeLessThanOrEqual(300);
    expect(DOCS.length).toBeGreaterThan(5);
    expect(DOCS.filter((page) => !readme.includes(`](${page})`))).toEqual([]);
  });

  it('its set-up line installs every Debian package CI installs when missing', () => {
    const readme = readFileSync(fromRoot('README.md'), 'utf8');
    const line = /^sudo apt-get install -y ([^#\n]+)/m.exec(readme);
    expect(line).not.toBeNull();
    const named = line![1]!.trim().split(/\s+/);
    const ci = [...readFileSync(fromRoot('.ci/run'), 'utf8').matchAll(/missing\+=\((\w+)\)/g)].map((m) => m[1]);
    expect(ci.length).toBeGreaterThan(0);
    expect(ci.filter((pkg) => !named.includes(pkg!))).toEqual([]);
  });

  it('links the API reference the service serves, instead of a hand-written endpoint table', () => {
    const readme = readFileSync(fromRoot('README.md'), 'utf8');
    const section = readme.slice(readme.indexOf("## The service's API"));
    // The link: the reference page on the demo's origin, a route of the service that anyone may read.
    const target = /^\[reference\]: (http:\/\/127\.0\.0\.1:4010)(\/\S*)$/m.exec(readme);
    expect(target).not.toBeNull();
    expect(section).toContain('**[the API reference][reference]**');
    expect(ROUTES.filter((r) => r.method === 'GET' && r.path === target![2]).map((r) => r.auth)).toEqual(['none']);
    expect(target![2]).toBe('/api/v1/reference');
    // The routes are the one list: neither the README nor a page of docs/ restates them in a table.
    for (const page of ['README.md', ...DOCS]) {
      const rows = [...readFileSync(fromRoot(page), 'utf8').matchAll(/^\| `(GET|POST|PUT|PATCH|DELETE) (\/[^`\s?]*)`/gm)].map((m) => `${m[1]} ${m[2]}`);
      expect(rows, page).toEqual([]);
    }
  });

  it('docs/architecture.md draws the layout the repository has: every folder it names exists, every top-level folder is named', () => {
    const readme = readFileSync(fromRoot('docs/architecture.md'), 'utf8');
    const start = readme.indexOf('## How it is built');
    const tree = readme.slice(readme.indexOf('```', start) + 4, readme.indexOf('```', readme.indexOf('```', start) + 3));
    const named: string[] = [];
    let parent = '';
    for (const line of tree.split('\n')) {
      const head = /^(\s*)(\S.*?)(\s{2,}|$)/.exec(line);
      if (!head) continue;
      const folders = [...head[2].matchAll(/([\w.-]+(?:\/[\w.-]+)*)\//g)].map((m) => m[1]);
      if (head[1] === '' && folders.length) parent = folders[0];
      named.push(...(head[1] === '' ? folders.slice(0, 1) : folders.map((f) => `${parent}/${f}`)));
    }
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((folder) => !existsSync(fromRoot(folder)))).toEqual([]);
    const ignored = new Set(['node_modules', 'build', 'dist', 'reports', 'test-results', 'playwright-report', 'screenshots']);
    const topLevel = readdirSync(fromRoot(''), { withFileTypes: true })
      .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !ignored.has(e.name))
      .map((e) => e.name);
    expect(topLevel.filter((name) => !named.includes(name))).toEqual([]);
  });

  it.each(['README.md', ...DOCS])('%s links nowhere outside the repository: every relative link names a file or folder of it', (page) => {
    const text = readFileSync(fromRoot(page), 'utf8');
    const targets = [...text.matchAll(/\]\(([^)\s]+)\)|^\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1] ?? m[2]);
    expect(targets.length).toBeGreaterThan(0);
    const relative = targets.filter((t) => !/^(https?:|mailto:|#)/.test(t)).map((t) => join(dirname(page), t.split('#')[0]));
    expect(relative.filter((t) => t.startsWith('..') || t.startsWith('/') || !existsSync(fromRoot(t)))).toEqual([]);
    // The spec's text is not in a clone: the API reference the service serves is its replacement.
    expect(text).not.toMatch(/shared\/spec/);
    if (/\]\[reference\]/.test(text)) expect(text).toMatch(/^\[reference\]: http:\/\/127\.0\.0\.1:4010\/api\/v1\/reference$/m);
  });
});

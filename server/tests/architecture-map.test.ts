// docs/architecture.md's map of the tree ("How it is built") is held to the tree: every folder of
// the repository's top level and of server/ is named in it, and every folder it names exists.
// A map that left out refunds, team, email and audit went unnoticed until a review read it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../service/paths.ts';

const doc = readFileSync(fromRoot('docs/architecture.md'), 'utf8');
const map = /## How it is built\n\n```\n([\s\S]*?)\n```/.exec(doc)?.[1] ?? '';
const folders = (dir: string) =>
  readdirSync(fromRoot(dir), { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !['node_modules', 'build', 'dist', 'reports', 'test-results'].includes(e.name))
    .map((e) => e.name);

/** The folders a map names: `name/` at the start of a line, indented two spaces under server/. */
export function named(text: string): { top: string[]; server: string[] } {
  const top: string[] = [];
  const server: string[] = [];
  let parent = '';
  for (const line of text.split('\n')) {
    const nested = /^ {2}(\S.*?)\s{2,}/.exec(line);
    const outer = /^(\S+?)\s{2,}/.exec(line);
    const names =
      (nested ?? outer)?.[1]
        ?.split(/,\s*/)
        .filter((n) => n.endsWith('/'))
        .map((n) => n.slice(0, -1).split('/')[0]!) ?? [];
    if (!nested) {
      top.push(...names);
      parent = names[0] ?? parent;
    } else if (parent === 'server') server.push(...names);
  }
  return { top, server };
}

describe("docs/architecture.md's map", () => {
  const { top, server } = named(map);
  it('is found in the document', () => {
    expect(map.length).toBeGreaterThan(100);
  });
  it('names every folder of server/, and none that is not there', () => {
    expect(new Set(server)).toEqual(new Set(folders('server')));
  });
  it('names every top-level folder, and none that is not there', () => {
    for (const name of folders('.')) expect(top, `${name}/ is not in the map`).toContain(name);
    for (const name of top) expect(existsSync(fromRoot(name)), `${name}/ is in the map but not in the tree`).toBe(true);
  });
  it('would fail on a folder the map leaves out', () => {
    const without = named(map.replace(/^ {2}team\/.*\n/m, ''));
    expect(new Set(without.server)).not.toEqual(new Set(folders('server')));
  });
});

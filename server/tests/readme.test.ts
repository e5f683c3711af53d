// The README's endpoint list and the route table say the same thing.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../paths.ts';
import { ROUTES } from '../routes/table.ts';

describe('the README', () => {
  it('lists every endpoint of the route table, and no other', () => {
    const readme = readFileSync(fromRoot('README.md'), 'utf8');
    const section = readme.slice(readme.indexOf("## The service's API"));
    const listed = [...section.matchAll(/^\| `(GET|POST|PUT|PATCH|DELETE) (\/[^`\s?]*)`/gm)].map((m) => `${m[1]} ${m[2]}`);
    const declared = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(listed).size).toBe(listed.length);
    expect([...listed].sort()).toEqual([...declared].sort());
  });
});

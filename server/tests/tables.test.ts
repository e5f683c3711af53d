// Every table has one owner (server/storage/tables.ts), and SQL naming a table lives only in its
// owner's folder: another feature calls a function of the owner's store, in its own transaction.
// The scan reads production files of server/ (tests, their helpers and the migrations aside: a
// migration creates and reshapes every table; the commands and the jobs hold no SQL, the
// boundaries test keeps SQL in stores). The exceptions list below is empty, and held both ways: a
// query on another feature's table fails the test until it moves into its owner's store.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../service/paths.ts';
import { TABLE_OWNERS } from '../storage/tables.ts';

const ROOT = fromRoot('');
const MIGRATIONS = 'server/storage/migrations';

function files(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) return files(path);
    return /\.ts$/.test(name) && !/\.test\.ts$/.test(name) ? [path] : [];
  });
}

/** The tables the migrations create. */
const created = () =>
  files(MIGRATIONS).flatMap((file) => [...readFileSync(join(ROOT, file), 'utf8').matchAll(/CREATE TABLE(?:\s+IF NOT EXISTS)?\s+(\w+)/gi)].map((m) => m[1]!));

const TABLES = new Set(Object.keys(TABLE_OWNERS));
/** A statement naming a table: FROM, JOIN, INTO, UPDATE, TRUNCATE [TABLE], LOCK [TABLE], then the name. */
const NAMED = /\b(?:FROM|JOIN|INTO|UPDATE|TRUNCATE(?:\s+TABLE)?|LOCK(?:\s+TABLE)?)\s+(?:ONLY\s+)?(\w+)\b/g;
/** A statement whose table is interpolated (`FROM ${table}`): its file's quoted table names are what it names. */
const DYNAMIC = /\b(?:FROM|JOIN|INTO|UPDATE|TRUNCATE(?:\s+TABLE)?|LOCK(?:\s+TABLE)?)\s+\$\{/;

/** The tables a file's SQL names: in its string and template literals, comments left out. */
export function tablesNamed(text: string): string[] {
  const code = text.replace(/^\s*(\/\/|\*|\/\*).*$/gm, '');
  const literals = [...code.matchAll(/`(?:\\[\s\S]|[^`\\])*`|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g)].map((m) => m[0]);
  const named = new Set(literals.flatMap((literal) => [...literal.matchAll(NAMED)].map((m) => m[1]!)).filter((t) => TABLES.has(t)));
  if (literals.some((literal) => literal.startsWith('`') && DYNAMIC.test(literal))) {
    for (const literal of literals) if (TABLES.has(literal.slice(1, -1))) named.add(literal.slice(1, -1));
  }
  return [...named].sort();
}

/** Per file of `sources` (path and text), the tables its SQL names that another feature owns. */
export function foreignTables(sources: Array<{ file: string; text: string }>): Record<string, string[]> {
  const found: Record<string, string[]> = {};
  for (const { file, text } of sources) {
    const foreign = tablesNamed(text).filter((t) => !file.startsWith(`server/${TABLE_OWNERS[t as keyof typeof TABLE_OWNERS]}/`));
    if (foreign.length > 0) found[file] = foreign;
  }
  return found;
}

/** Production code of the service: not the tests, their helpers and fixtures, nor the migrations. */
const service = () =>
  files('server')
    .filter((file) => !/(^|\/)(tests|testing)\//.test(file) && !file.startsWith(`${MIGRATIONS}/`))
    .map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));

/**
 * Exceptions: a file and the tables of other features its SQL names. There are none: a query on
 * another feature's table is a function of the owner's store that takes the caller's transaction,
 * or, where the join is the point, a fragment that store exports. Keep it empty.
 */
const EXCEPTIONS: Record<string, string[]> = {};

describe('every table has one owner', () => {
  it('every table a migration creates is in the map, and the map names no other', () => {
    const tables = created();
    expect(tables.length).toBeGreaterThan(50);
    expect(tables.filter((t) => !TABLES.has(t))).toEqual([]);
    expect([...TABLES].filter((t) => !tables.includes(t))).toEqual([]);
  });

  it('each owner is a folder of server/', () => {
    const folders = readdirSync(join(ROOT, 'server')).filter((name) => statSync(join(ROOT, 'server', name)).isDirectory());
    expect([...new Set(Object.values(TABLE_OWNERS))].filter((owner) => !folders.includes(owner))).toEqual([]);
  });

  it("finds SQL on another feature's table, and not its own or prose (the check can fail)", () => {
    const text = [
      '// SELECT * FROM refunds, in a comment',
      'const own = `SELECT p.id FROM payments p JOIN transfers t ON t.payment_id = p.id`;',
      "const theirs = 'UPDATE refunds SET state = $1'; const more = `DELETE FROM chain_transfers WHERE id = $1`;",
      "const locked = 'LOCK TABLE withdrawals IN SHARE MODE'; const words = 'money from payouts into merchants';",
    ].join('\n');
    expect(tablesNamed(text)).toEqual(['chain_transfers', 'payments', 'refunds', 'transfers', 'withdrawals']);
    expect(foreignTables([{ file: 'server/payments/store.ts', text }])).toEqual({ 'server/payments/store.ts': ['chain_transfers', 'refunds', 'withdrawals'] });
    expect(foreignTables([{ file: 'server/refunds/store.ts', text: "const q = 'UPDATE refunds SET state = $1';" }])).toEqual({});
    // An interpolated table: the file's quoted table names are what it names.
    const dynamic = "for (const table of ['second_factors', 'payments']) await tx.query(`DELETE FROM ${table} WHERE id = $1`);";
    expect(tablesNamed(dynamic)).toEqual(['payments', 'second_factors']);
    expect(tablesNamed("const table = 'payments'; // no statement")).toEqual([]);
  });

  it("SQL naming a table lives only in its owner's folder, with no exception", () => {
    const sources = service();
    expect(sources.length).toBeGreaterThan(150);
    expect(foreignTables(sources)).toEqual(EXCEPTIONS);
  });
});

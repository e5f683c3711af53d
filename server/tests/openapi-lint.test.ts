// The OpenAPI document, linted by a tool nobody here wrote: Redocly's CLI (@redocly/cli, its
// recommended rules, as redocly.yaml sets them) on the document the routes make. Any error or
// warning fails. The three rules redocly.yaml turns off are checked here in their place.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openApiDocument, type JsonSchema } from '../api/api-doc.ts';
import { ROUTES } from '../api/table.ts';

const ROOT = join(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Operation = {
  description?: string;
  parameters?: Array<{ name: string; in: string; schema: JsonSchema }>;
  security?: unknown[];
  requestBody?: unknown;
  responses: Record<string, unknown>;
};
type Paths = Record<string, Record<string, Operation>>;

interface Problem {
  ruleId: string;
  severity: 'error' | 'warn';
  message: string;
  location: Array<{ pointer: string }>;
}

/** Redocly's lint of `doc`, with the repository's redocly.yaml: its problems. */
async function lint(doc: JsonSchema, name: string): Promise<Problem[]> {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(doc, null, 2));
  const run = await promisify(execFile)(join(ROOT, 'node_modules/.bin/redocly'), ['lint', file, '--format=json', `--config=${join(ROOT, 'redocly.yaml')}`], {
    cwd: ROOT,
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((failed: { stdout?: string; stderr?: string }) => {
    // It exits non-zero when it finds an error: its report is still on stdout.
    if (!failed.stdout) throw new Error(`redocly lint did not run: ${failed.stderr}`);
    return { stdout: failed.stdout };
  });
  return (JSON.parse(run.stdout.slice(run.stdout.indexOf('{'))) as { problems: Problem[] }).problems;
}

const said = (problems: Problem[]) => problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`);

describe('the OpenAPI document, by Redocly', () => {
  const doc = openApiDocument(ROUTES, 'http://127.0.0.1:4010');

  it('has no error and no warning', { timeout: 30_000 }, async () => {
    expect(said(await lint(doc, 'openapi.json'))).toEqual([]);
  });

  it('fails the lint when an operation or a webhook loses what it must say', { timeout: 30_000 }, async () => {
    // The check can fail: the same document with a webhook's security and an operation's
    // description taken away, and two operations with one id.
    const broken = structuredClone(doc) as { paths: Paths; webhooks: Record<string, { post: Operation & { operationId?: string } }> };
    delete broken.webhooks.DEPOSIT_TRANSACTION.post.security;
    const [first, second] = Object.values(broken.paths).flatMap((methods) => Object.values(methods)) as Array<Operation & { operationId: string }>;
    second.operationId = first.operationId;
    delete first.description;
    const rules = (await lint(broken as unknown as JsonSchema, 'broken.json')).map((p) => `${p.severity} ${p.ruleId}`);
    expect(rules).toEqual(expect.arrayContaining(['error security-defined', 'error operation-operationId-unique', 'error operation-description']));
  });
});

describe('what redocly.yaml leaves to this test', () => {
  const doc = openApiDocument(ROUTES, 'http://127.0.0.1:4010') as { paths: Paths; components: { responses: Record<string, unknown> } };
  const ajv = new Ajv2020({ strict: false });
  addFormats.default(ajv);

  it("has no two paths one URL could match: where the templates allow it, a parameter's schema refuses the other's literal segment", () => {
    const templated = (segment: string) => /^\{.+\}$/.test(segment);
    const paramSchema = (path: string, name: string): JsonSchema => {
      const op = Object.values(doc.paths[path])[0];
      return op.parameters!.find((p) => p.in === 'path' && p.name === name.slice(1, -1))!.schema;
    };
    const ambiguous: string[] = [];
    let flagged = 0;
    const paths = Object.keys(doc.paths);
    for (const [i, a] of paths.entries()) {
      for (const b of paths.slice(i + 1)) {
        const [sa, sb] = [a.split('/'), b.split('/')];
        if (sa.length !== sb.length) continue;
        // Redocly's no-ambiguous-paths: each segment equal, or one of the two templated.
        if (sa.some((s, k) => !templated(s) && !templated(sb[k]) && s !== sb[k])) continue;
        if (sa.filter(templated).length !== sb.filter(templated).length) continue;
        flagged++;
        // Told apart where one path's literal segment is not a value the other's parameter takes.
        const apart = sa.some(
          (s, k) =>
            (templated(s) && !templated(sb[k]) && !ajv.validate(paramSchema(a, s), sb[k])) ||
            (templated(sb[k]) && !templated(s) && !ajv.validate(paramSchema(b, sb[k]), s)),
        );
        if (!apart) ambiguous.push(`${a} and ${b}`);
      }
    }
    expect(flagged).toBeGreaterThanOrEqual(2);
    expect(ambiguous).toEqual([]);
  });

  it('lists a 4xx for every operation but those that take no key and no input', () => {
    const none = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods)
        .filter(([, op]) => !Object.keys(op.responses).some((s) => s.startsWith('4')))
        .map(([method, op]) => ({ op: `${method.toUpperCase()} ${path}`, input: !!op.parameters?.length || !!op.requestBody || !!op.security?.length })),
    );
    expect(none.filter((o) => o.input)).toEqual([]);
    expect(none.map((o) => o.op).sort()).toEqual(['GET /api/v1/openapi.json', 'GET /healthz', 'GET /readyz']);
  });

  it('keeps the answers no operation gives in components.responses: 405 with Allow, 404', () => {
    expect(Object.keys(doc.components.responses).sort()).toEqual(['MethodNotAllowed', 'NotFound']);
    expect(doc.components.responses.MethodNotAllowed).toMatchObject({ headers: { Allow: { required: true } } });
  });
});

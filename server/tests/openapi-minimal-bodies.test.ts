// The document refuses what the service refuses. For every operation of the OpenAPI
// document, the least request the document allows (its required parameters and body fields,
// each the least value its schema takes; a `oneOf` its first branch) is sent to the service;
// a 400 means the service refuses a request the document let a client build, so a rule the
// client could have known is missing from the contract's schema (a standard link's cart or
// charge, exactly one of them, was). Ids that name nothing may be 404, a state 409: those are
// not the document's to know. Every answer is also held to the document (conformance.ts).
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../testing/conformance.ts';
import { startService, type Service } from '../service/app.ts';
import type { JsonSchema } from '../api/api-doc.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';

holdAnswersToOpenApi();

let api: Service;
let doc: JsonSchema;
beforeAll(async () => {
  api = await startService({ demo: true, jobs: false, moneyMovesPerMinute: 10_000 });
  doc = (await (await fetch(`${api.url}/api/v1/openapi.json`)).json()) as JsonSchema;
}, 60_000);
afterAll(() => api?.close());

const resolve = (schema: JsonSchema): JsonSchema => {
  const ref = schema.$ref as string | undefined;
  if (!ref) return schema;
  return ref
    .slice(2)
    .split('/')
    .reduce((node: any, part) => node[part], doc) as JsonSchema;
};

/** The least value a JSON Schema takes (the first of a choice, only what is required). */
export function least(input: JsonSchema): unknown {
  const schema = resolve(input);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  for (const choice of ['oneOf', 'anyOf'] as const) {
    const branches = schema[choice] as JsonSchema[] | undefined;
    if (!branches) continue;
    const { [choice]: _, ...base } = schema;
    const branch = resolve(branches[0]!);
    // A branch that only adds rules to the object around it (exactly one of…) is merged into it.
    if (base.type === 'object' || base.properties) {
      return least({
        ...base,
        ...branch,
        required: [...((base.required as string[]) ?? []), ...((branch.required as string[]) ?? [])],
        properties: { ...(base.properties as object), ...((branch.properties as object) ?? {}) },
      });
    }
    return least({ ...base, ...branch });
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  if (type === 'object' || schema.properties) {
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const out: Record<string, unknown> = {};
    for (const name of (schema.required as string[] | undefined) ?? []) out[name] = least(properties[name] ?? {});
    return out;
  }
  if (type === 'array') return Array.from({ length: Number(schema.minItems ?? 0) }, () => least((schema.items ?? {}) as JsonSchema));
  if (type === 'boolean') return false;
  if (type === 'integer' || type === 'number') {
    const floor = schema.minimum ?? (schema.exclusiveMinimum === undefined ? 0 : Number(schema.exclusiveMinimum) + 1);
    return Number(floor);
  }
  if (type === 'string') {
    if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000';
    if (schema.format === 'email') return 'ada@example.com';
    if (schema.format === 'date-time') return '2026-01-01T00:00:00.000Z';
    if (schema.format === 'uri') return 'https://shop.example/x';
    if (typeof schema.pattern === 'string') {
      const fits = (s: string) =>
        new RegExp(schema.pattern as string).test(s) && !(schema.not && new RegExp(String((schema.not as JsonSchema).pattern)).test(s));
      const [sample] = fc.sample(
        fc
          .stringMatching(new RegExp(schema.pattern))
          .filter((s) => fits(s) && s.length >= Number(schema.minLength ?? 0) && s.length <= Number(schema.maxLength ?? 10_000) && /[1-9a-z]/i.test(s)),
        { numRuns: 1, seed: 54 },
      );
      // The least of a text's spellings: all lower case where that fits too (an address then needs no checksum).
      return fits(sample!.toLowerCase()) ? sample!.toLowerCase() : sample;
    }
    return 'x'.repeat(Math.max(1, Number(schema.minLength ?? 1)));
  }
  return {};
}

interface Operation {
  parameters?: Array<{ name: string; in: string; required: boolean; schema: JsonSchema }>;
  requestBody?: { content: Record<string, { schema: JsonSchema }> };
  security?: Array<Record<string, unknown>>;
}

describe("every operation's least document-valid request", () => {
  it('is never refused as bad input (400) by the service', { timeout: 120_000 }, async () => {
    const { publicKey, secretKey } = DEMO_MERCHANT.keys.test;
    let secret = secretKey;
    const refused: string[] = [];
    let sent = 0;
    const operations = Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, op })),
    );
    for (const { path, method, op } of operations) {
      const params = op.parameters ?? [];
      let url = path;
      for (const p of params.filter((p) => p.in === 'path')) url = url.replace(`{${p.name}}`, encodeURIComponent(String(least(p.schema))));
      const query = new URLSearchParams(params.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, String(least(p.schema))]));
      const usesPublic = op.security?.some((s) => 'publicKey' in s) && !op.security?.some((s) => 'secretKey' in s);
      const headers: Record<string, string> = usesPublic ? { 'x-api-key': publicKey } : { authorization: `Bearer ${secret}` };
      let body: BodyInit | undefined;
      const media = op.requestBody && Object.keys(op.requestBody.content)[0];
      if (media === 'application/json') {
        headers['content-type'] = 'application/json';
        body = JSON.stringify(least(op.requestBody!.content[media].schema));
      } else if (media === 'multipart/form-data') {
        const form = new FormData();
        const schema = op.requestBody!.content[media].schema;
        for (const [name, value] of Object.entries(least(schema) as Record<string, unknown>)) form.append(name, String(value));
        body = form;
      }
      const response = await fetch(`${api.url}${url}${query.size ? `?${query}` : ''}`, { method: method.toUpperCase(), headers, body });
      sent++;
      const text = await response.text();
      if (response.status === 400) refused.push(`${method.toUpperCase()} ${path}: ${body instanceof FormData ? 'a form' : (body ?? '')} → ${text}`);
      // A rolled key answers the key that works from now on.
      const rolled = /"secretKey":"(sk_test_[^"]+)"/.exec(text);
      if (response.status < 300 && rolled) secret = rolled[1]!;
    }
    expect(sent).toBeGreaterThan(50);
    expect(refused).toEqual([]);
  });
});

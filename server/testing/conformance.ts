// An HTTP test file calls holdAnswersToOpenApi() at its top level to hold every answer of the
// API that its tests see to the OpenAPI document: it records each response fetched from a route
// the document covers, and after the file's tests checks each body against the schema of its
// operation and status. An answer the document does not allow fails the file, naming the call.
// A call per file, not a side effect of the import: the service's files share their worker's
// imports (isolate: false), so an import runs once per worker and would check its first file only.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, expect } from 'vitest';
import { Router } from '../http/router.ts';
import { documented, openApiDocument, openApiPath, type JsonSchema } from '../api/api-doc.ts';
import { ROUTES } from '../api/table.ts';

type Responses = Record<string, { content?: Record<string, { schema: JsonSchema }> }>;

const doc = openApiDocument(ROUTES, 'http://127.0.0.1');
const paths = doc.paths as Record<string, Record<string, { responses: Responses }>>;
const errorSchema = (doc.components as { schemas: { Error: JsonSchema } }).schemas.Error;
const router = new Router(ROUTES.filter(documented));
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

/** What one file's tests were answered, and what of it the document does not allow. */
interface Held {
  answers: Array<{ call: string; status: number }>;
  /** Origins of stand-ins a test runs in the service's place (a proxy failing on purpose): not the service, not checked. */
  standIns: Set<string>;
  problems: string[];
  pending: Array<Promise<void>>;
}

function check(held: Held, method: string, path: string, status: number, type: string | null, text: string): void {
  const { answers, problems } = held;
  let found: ReturnType<typeof router.match>;
  try {
    found = router.match(method, path);
  } catch {
    return; // a malformed %-escape: refused before any operation
  }
  if (!('spec' in found)) return; // a path or method the API does not have: 404/405, not an operation
  const call = `${method} ${path} ${status}`;
  answers.push({ call, status });
  const response = paths[openApiPath(found.spec.path)][method.toLowerCase()].responses[String(status)];
  if (!response?.content) return void problems.push(`${call}: the document has no ${status} for ${method} ${openApiPath(found.spec.path)}`);
  // A text answer (CSV) is held to its media type; JSON to its schema.
  const media = Object.keys(response.content)[0];
  if (media !== 'application/json') return void (type?.startsWith(media) || problems.push(`${call}: answered ${type}, not ${media}`));
  if (!type?.startsWith('application/json')) return void problems.push(`${call}: answered ${type}, not JSON`);
  const schema = response.content['application/json'].schema;
  if (!ajv.validate(schema.$ref ? errorSchema : schema, JSON.parse(text))) problems.push(`${call}: ${ajv.errorsText(ajv.errors)}`);
}

/**
 * Holds every answer the calling file's tests fetch from the service to the OpenAPI document,
 * checked after the file's tests. Call it once, at the file's top level (its afterAll is the file's).
 */
export function holdAnswersToOpenApi(): Pick<Held, 'answers' | 'standIns'> {
  const held: Held = { answers: [], standIns: new Set(), problems: [], pending: [] };
  const original = globalThis.fetch;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const response = await original(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.hostname === '127.0.0.1' && !held.standIns.has(url.origin) && documented({ path: url.pathname })) {
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      // Read from a copy, never holding up the test; an answer cut short (an aborted long poll) is not one.
      held.pending.push(
        response
          .clone()
          .text()
          .then((text) => check(held, method, url.pathname, response.status, response.headers.get('content-type'), text))
          .catch(() => {}),
      );
    }
    return response;
  };

  afterAll(async () => {
    globalThis.fetch = original;
    // An answer still streaming now (a long poll left open) is not one: wait a little, not for ever.
    await Promise.race([Promise.all(held.pending), new Promise((resolve) => setTimeout(resolve, 2000))]);
    const { answers, problems } = held;
    console.log(
      `OpenAPI conformance: ${answers.length} answers checked, ${new Set(answers.map((a) => a.call.replace(/ \/[^ ]*/, (p) => ' ' + (router.match(a.call.split(' ')[0], p.trim()) as { spec?: { path: string } }).spec?.path))).size} operation/status pairs`,
    );
    expect(problems, 'answers that the OpenAPI document does not allow').toEqual([]);
  });
  return { answers: held.answers, standIns: held.standIns };
}

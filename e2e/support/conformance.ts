// Every answer the service gives during the e2e suite, held to its OpenAPI document by ajv: the
// browser's calls, the demo shop's (through the SDK) and the tests' own alike, since it listens
// at the service's server. Each answer of a path the document has is matched to an operation
// by the document's own path templates (a literal segment before a parameter, then a parameter
// whose schema takes the value), and its body validated against that operation's schema for
// its status; a status the operation does not list is a problem too. A method a path lacks
// must answer the document's 405 (with Allow naming the path's methods), a path the API lacks
// its 404. Faults a test injected on purpose (startService({ faults: true })) are not answers.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Service } from '../../server/service/app.ts';

type Json = Record<string, unknown>;
type Operation = {
  parameters?: Array<{ name: string; in: string; schema: Json }>;
  responses: Record<string, { content?: Record<string, unknown>; headers?: Json }>;
};

/** Problems found in this worker since the last look, and how many answers were checked. */
export const conformance = { problems: [] as string[], checked: 0 };

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
type Doc = { paths: Record<string, Record<string, Operation>> };
let loaded: { doc: Doc; templates: Array<{ path: string; segments: string[] }> } | undefined;
const compiled = new Map<string, ValidateFunction>();

/** The validator of the schema at `pointer` in the document (a JSON pointer), compiled once. */
function validator(pointer: string): ValidateFunction {
  let found = compiled.get(pointer);
  if (!found) {
    found = ajv.getSchema(`openapi.json#${pointer}`)!;
    compiled.set(pointer, found);
  }
  return found;
}
const pointerEscape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The document's path for a request path: literal segments first, then parameters whose schema takes the value. */
function templateOf(path: string): string | undefined {
  const parts = path.split('/');
  const candidates = loaded!.templates.filter((t) => t.segments.length === parts.length && t.segments.every((s, i) => s.startsWith('{') || s === parts[i]));
  const score = (t: { path: string; segments: string[] }) => {
    const op = Object.values(loaded!.doc.paths[t.path])[0];
    const fits = t.segments.every((s, i) => {
      if (!s.startsWith('{')) return true;
      const schema = op.parameters?.find((p) => p.in === 'path' && p.name === s.slice(1, -1))?.schema;
      return !schema || ajv.validate(schema, decodeURIComponent(parts[i]));
    });
    return (fits ? 1000 : 0) + t.segments.filter((s) => !s.startsWith('{')).length;
  };
  return candidates.sort((a, b) => score(b) - score(a))[0]?.path;
}

function check(method: string, path: string, status: number, headers: Record<string, unknown>, text: string): void {
  const { doc } = loaded!;
  const documentedPrefix = path.startsWith('/api/v1/') || path === '/healthz' || path === '/readyz';
  if (!documentedPrefix || path === '/api/v1/reference' || method === 'OPTIONS') return;
  conformance.checked++;
  const call = `${method} ${path} ${status}`;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    if (!String(headers['content-type']).startsWith('text/csv')) conformance.problems.push(`${call}: not JSON (${String(headers['content-type'])})`);
    return;
  }
  const template = templateOf(path);
  const errorValid = validator('/components/schemas/Error');
  if (!template) {
    if (status !== 404 || !errorValid(body)) conformance.problems.push(`${call}: a path the document does not have answered ${status}, not its 404`);
    return;
  }
  const methods = Object.keys(doc.paths[template]).map((m) => m.toUpperCase());
  if (!methods.includes(method)) {
    const allow = String(headers.allow ?? '')
      .split(', ')
      .sort()
      .join(', ');
    if (status !== 405 || !errorValid(body) || allow !== [...methods].sort().join(', '))
      conformance.problems.push(
        `${call}: ${template} has ${methods.join(', ')}: expected the document's 405 with that Allow, answered ${status} (Allow: ${allow})`,
      );
    return;
  }
  const response = doc.paths[template][method.toLowerCase()].responses[String(status)];
  if (!response?.content?.['application/json']) {
    conformance.problems.push(`${call}: ${method} ${template} documents no JSON ${status}`);
    return;
  }
  const validate = validator(`/paths/${pointerEscape(template)}/${method.toLowerCase()}/responses/${status}/content/application~1json/schema`);
  if (!validate(body)) conformance.problems.push(`${call}: ${ajv.errorsText(validate.errors)}`);
}

/** Holds every answer of `api` to the document it serves; call before any request is made to it. */
export async function checkAnswers(api: Service): Promise<void> {
  if (!loaded) {
    const doc = (await (await fetch(`${api.url}/api/v1/openapi.json`)).json()) as Doc;
    ajv.addSchema(doc as unknown as Json, 'openapi.json', undefined, false); // an OpenAPI document, not a JSON Schema: its schemas are compiled as used
    loaded = { doc, templates: Object.keys(doc.paths).map((path) => ({ path, segments: path.split('/') })) };
  }
  const injected = new WeakSet<IncomingMessage>();
  const faults = api.faults;
  if (faults) {
    const apply = faults.apply.bind(faults);
    faults.apply = async (call, req, res) => {
      const taken = await apply(call, req, res);
      if (taken) injected.add(req);
      return taken;
    };
  }
  api.server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      if (chunk) chunks.push(Buffer.from(chunk as string));
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk as string));
      return end(chunk, ...rest);
    }) as typeof res.end;
    res.on('finish', () => {
      if (injected.has(req)) return;
      const path = new URL(req.url ?? '/', 'http://service.invalid').pathname;
      check(req.method ?? 'GET', path, res.statusCode, res.getHeaders(), Buffer.concat(chunks).toString());
    });
  });
}

// A client made from the OpenAPI document by tools nobody here wrote, as a merchant's developer
// would make it: openapi-typescript turns the document the service serves into types, a small
// program calls the service through openapi-fetch with them, tsc typechecks the program (a body
// the document does not allow, such as an NGN bank account without its bank code, must not
// compile), and the program runs against this service. Every answer it gets is also held to the
// document's schemas (conformance.ts).
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { holdAnswersToOpenApi } from '../testing/conformance.ts';
import { startService, type Service } from '../service/app.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';

holdAnswersToOpenApi();

const ROOT = join(import.meta.dirname, '../..');
// Inside the repository (under node_modules/.cache), so the program finds openapi-fetch.
mkdirSync(join(ROOT, 'node_modules/.cache'), { recursive: true });
const dir = mkdtempSync(join(ROOT, 'node_modules/.cache/openapi-client-'));
let api: Service;

beforeAll(async () => {
  api = await startService({ demo: true, jobs: false });
}, 60_000);
afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The merchant's program: only the generated types and openapi-fetch. */
const PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './schema.js';

export async function main(baseUrl: string, keys: { publicKey: string; secretKey: string }, priceId: string) {
  const checkout = createClient<paths>({ baseUrl, headers: { 'x-api-key': keys.publicKey } });
  const server = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${keys.secretKey}\` } });
  const reference = 'client-' + Date.now();

  const initialized = await checkout.POST('/api/v1/transaction/initialize', { body: { reference, coin: 'USDT', currency: 'USD', amount: '24.50' } });
  if (!initialized.data) throw new Error('initialize: ' + JSON.stringify(initialized.error));
  const deposit: string = initialized.data.data.address;

  const verified = await checkout.GET('/api/v1/transaction/verify/{reference}', { params: { path: { reference } } });
  const status: string | undefined = verified.data?.data.status;

  const listed = await server.GET('/api/v1/payments', { params: { query: { limit: 10 } } });
  const references: string[] = (listed.data?.data ?? []).map((p) => p.reference);

  const link = await server.POST('/api/v1/payment_links/standard', { body: { title: 'Two bags of beans', cart: [{ price_id: priceId, quantity: 2 }] } });
  const linkUrl: string | undefined = link.data?.data.url;

  const bank = await server.POST('/api/v1/bank/payouts', {
    body: { currency: 'NGN', bank_name: 'Access Bank', bank_code: '044', account_name: 'Harbour Coffee Ltd', account_number: '0690000031', country: 'nigeria', state: 'Lagos' },
  });
  const bankId: string | undefined = bank.data?.data.id;

  // A link's status by something that is not its id (a UUID): refused, naming the parameter.
  const byName = await server.PUT('/api/v1/payment_links/{id}/status', { params: { path: { id: 'pay' } }, body: { is_active: false } });
  const refusedField = byName.error?.errors?.[0]?.field;

  return { deposit, status, references, linkUrl, bankId, refusedStatus: byName.response.status, refusedField };
}

// What the document refuses does not compile: each line below must be a type error.
export function refused(server: ReturnType<typeof createClient<paths>>) {
  // An NGN account needs its bank code.
  // @ts-expect-error
  void server.POST('/api/v1/bank/payouts', { body: { currency: 'NGN', bank_name: 'Access Bank', account_name: 'A', account_number: '1', country: 'nigeria', state: 'Lagos' } });
  // A USD account takes no bank code.
  void server.POST('/api/v1/bank/payouts', {
    body: {
      currency: 'USD', bank_name: 'Chase', account_name: 'A', account_number: '1', country: 'united states', account_type: 'business', routing_number: '021000021',
      city: 'Brooklyn', state: 'NY', address: '12 Water St', postal_code: '11201',
      // @ts-expect-error
      bank_code: '044',
    },
  });
  // Initialize takes no unknown coin field type.
  // @ts-expect-error
  void server.POST('/api/v1/transaction/initialize', { body: { reference: 'x', coin: 7, currency: 'USD', amount: '1' } });
}
`;

describe('a client generated from the OpenAPI document', () => {
  it('compiles with tsc and works against the service: initialize, verify, list payments, create a link, add a bank account', {
    timeout: 120_000,
  }, async () => {
    const doc = await (await fetch(`${api.url}/api/v1/openapi.json`)).json();
    writeFileSync(join(dir, 'schema.ts'), astToString(await openapiTS(doc)));
    writeFileSync(join(dir, 'client.ts'), PROGRAM);
    writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
    const compilerOptions = {
      strict: true,
      target: 'es2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      lib: ['es2022', 'dom'],
      types: ['node'],
      skipLibCheck: true,
      outDir: 'out',
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['client.ts'] }));
    const tsc = await promisify(execFile)(join(ROOT, 'node_modules/.bin/tsc'), ['-p', dir], { cwd: dir }).catch((failed: { stdout: string }) => ({
      stdout: failed.stdout,
      failed: true,
    }));
    expect(tsc.stdout, 'tsc on the client program').toBe('');

    const priceId = [...(await api.parts.links.prices()).values()].find((p) => p.currency === 'USD')!.id;
    const { main } = (await import(pathToFileURL(join(dir, 'out/client.js')).href)) as {
      main: (url: string, keys: object, price: string) => Promise<Record<string, unknown>>;
    };
    const result = await main(api.url, DEMO_MERCHANT.keys.test, priceId);
    expect(result).toEqual({
      deposit: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
      status: 'pending',
      references: expect.arrayContaining([expect.stringMatching(/^client-/)]),
      linkUrl: expect.stringMatching(new RegExp(`^${api.url}/pay/`)),
      bankId: expect.any(String),
      refusedStatus: 400,
      refusedField: 'id',
    });
  });
});

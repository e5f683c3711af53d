import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { expect, test } from 'playwright/test';
import { BUNDLE_BUDGET } from './support/budget.ts';

const BUDGET = BUNDLE_BUDGET;
const BUNDLE = fileURLToPath(new URL('../dist/checkout.js', import.meta.url));

function gzipped(): { bytes: number; by: string } {
  try {
    return { bytes: execFileSync('gzip', ['-9', '-c', BUNDLE]).length, by: 'gzip -9' };
  } catch {
    // No gzip binary: zlib's deflate comes out ~0.5% larger than GNU gzip's, so this errs strict.
    return { bytes: gzipSync(readFileSync(BUNDLE), { level: 9 }).length, by: 'zlib level 9' };
  }
}

test('dist/checkout.js stays within its gzipped budget', () => {
  const { bytes, by } = gzipped();
  console.log(`dist/checkout.js: ${readFileSync(BUNDLE).length} bytes, ${bytes} bytes gzipped by ${by} (budget ${BUDGET})`);
  expect(bytes).toBeLessThanOrEqual(BUDGET);
});

test('the package imports as an ES module with types, touching nothing on import', async () => {
  // By its own name, through package.json "exports", in Node: no window, no document.
  // (A computed name: the type-check runs before the build that makes build/src.)
  const name = 'service-checkout';
  const module = (await import(name)) as typeof import('../src/index.ts');
  expect(typeof module.ServiceCheckout).toBe('function');
  const types = readFileSync(new URL('../build/src/index.d.ts', import.meta.url), 'utf8');
  expect(types).toContain('ServiceCheckout');
  const serverName = 'service-checkout/server';
  const server = (await import(serverName)) as typeof import('../sdk/index.ts');
  expect(typeof server.ServiceClient).toBe('function');
  expect(typeof server.verifyWebhook).toBe('function');
  // …and none of the server side is in the browser bundle.
  const bundle = readFileSync(BUNDLE, 'utf8');
  for (const marker of ['x-service-signature', 'ServiceClient', 'timingSafeEqual', 'useServiceCheckout', 'ServiceCheckoutButton', 'react.element', '__VUE'])
    expect(bundle).not.toContain(marker);
  // Schemas only the service reads (payout address, webhook, payment links) are shaken out:
  // later(), is(), oneOf() and nullable() are marked free of side effects.
  for (const message of ['a chain id such as 56', 'a payment link id or slug', 'not the zero address']) expect(bundle).not.toContain(message);
  const declared = readFileSync(new URL('../build/src/service-checkout.d.ts', import.meta.url), 'utf8');
  expect(declared).toMatch(/export declare function ServiceCheckout\(input: ServiceCheckoutOptions\): CheckoutHandle;/);
});

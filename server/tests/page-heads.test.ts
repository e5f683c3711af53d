// Every page the service serves has a tab icon and a description (from a Lighthouse
// run); the dashboard, no one's to find, tells search engines not to list it, in its page and
// in a header. Each page's CSP lets its icon (a data: image) load.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../service/app.ts';
import { DEMO_MERCHANT } from '../service/seed.ts';

let api: Service;
beforeAll(async () => {
  api = await startService({ demo: true, jobs: false });
});
afterAll(() => api?.close());

async function page(path: string) {
  const response = await fetch(api.url + path);
  expect(response.status, path).toBe(200);
  const html = await response.text();
  const head = html.slice(0, html.indexOf('</head>'));
  return { response, head, description: /<meta name="description" content="([^"]{20,160})">/.exec(head)?.[1] };
}

describe('the heads of the public pages', () => {
  it('the hosted payment page: an icon, and the link as its description', async () => {
    const made = await fetch(api.url + '/api/v1/payment_links', {
      method: 'POST',
      headers: { authorization: `Bearer ${DEMO_MERCHANT.keys.test.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ title: 'Tea "box" <b>', charge: { amount: '5.00', currency: 'USD' } }),
    });
    const { slug } = ((await made.json()) as { data: { slug: string } }).data;
    const { response, head, description } = await page(`/pay/${slug}`);
    expect(head).toMatch(/<link rel="icon" href="data:image\/svg\+xml,[^"]+">/);
    expect(description).toBe(`Pay Tea &quot;box&quot; &lt;b&gt; to ${DEMO_MERCHANT.businessName}`);
    expect(head).not.toContain('noindex');
    expect(response.headers.get('content-security-policy')).toContain("img-src 'self' data:");
  });

  it('the API reference: an icon and a description, its CSP letting the icon in', async () => {
    const { response, head, description } = await page('/api/v1/reference');
    expect(head).toMatch(/<link rel="icon" href="data:image\/svg\+xml,[^"]+">/);
    expect(description).toMatch(/every operation of the API/);
    expect(response.headers.get('content-security-policy')).toContain('img-src data:');
  });

  it('the dashboard: an icon, a description, and noindex in the page and in X-Robots-Tag', async () => {
    for (const path of ['/dashboard', '/dashboard/payments']) {
      const { response, head, description } = await page(path);
      expect(head).toMatch(/<link rel="icon" href="data:image\/svg\+xml,[^"]+">/);
      expect(description).toMatch(/dashboard/);
      expect(head).toContain('<meta name="robots" content="noindex">');
      expect(response.headers.get('x-robots-tag')).toBe('noindex, nofollow');
    }
  });
});

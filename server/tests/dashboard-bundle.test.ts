// The dashboard as the service serves it: one page under a strict CSP (no inline script, no
// other origin), its built script and style, and its size budget: dist/dashboard/dashboard.js
// and dashboard.css together at most DASHBOARD_BUDGET bytes as `gzip -9 -c … | wc -c`.
// Needs `npm run build`.
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type Service } from '../app.ts';
import { fromRoot } from '../paths.ts';

/** 22,924 bytes when set (21,306 script + 1,618 style); 23,590 with the Products screen. Only ever lower it. */
export const DASHBOARD_BUDGET = 26_000;

const gzipped = (path: string) => gzipSync(readFileSync(fromRoot(path)), { level: 9 }).length;

let api: Service;
beforeAll(async () => {
  api = await startService({ jobs: false });
});
afterAll(() => api?.close());

describe('the dashboard as served', () => {
  it('keeps its gzip budget, and leaves the widget\'s bundle alone', () => {
    const size = gzipped('dist/dashboard/dashboard.js') + gzipped('dist/dashboard/dashboard.css');
    console.log(`dashboard: ${size} bytes gzip -9 (budget ${DASHBOARD_BUDGET})`);
    expect(size).toBeLessThanOrEqual(DASHBOARD_BUDGET);
    expect(size).toBeGreaterThan(5_000);
    // The widget's bundle carries nothing of the dashboard.
    expect(readFileSync(fromRoot('dist/checkout.js'), 'utf8')).not.toMatch(/dashboard_session|\/dashboard\/api|x-csrf-token/);
  });

  it('never holds a key: the bundle sends no Authorization header and no key, only the session cookie', () => {
    const script = readFileSync(fromRoot('dist/dashboard/dashboard.js'), 'utf8');
    expect(script).toContain('x-csrf-token');
    expect(script).toContain('same-origin');
    expect(script).not.toMatch(/authorization|x-api-key|sk_(test|live)_/i);
  });

  it('serves every screen as one page under a strict CSP: no inline script, no other origin', async () => {
    for (const path of ['/dashboard', '/dashboard/payments', '/dashboard/payments/ord-1', '/dashboard/welcome', '/dashboard/developers']) {
      const page = await fetch(api.url + path);
      expect(page.status, path).toBe(200);
      const policy = page.headers.get('content-security-policy') ?? '';
      expect(policy).toContain("default-src 'none'");
      expect(policy).toContain("script-src 'self';");
      expect(policy).toContain("connect-src 'self'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await page.text();
      // Every script and style is a file of ours: none inline, none elsewhere.
      expect(html.match(/<script[^>]*>/g)).toEqual([expect.stringMatching(/^<script type="module" src="\/dashboard\/assets\/dashboard\.[0-9a-f]{16}\.js">$/)]);
      expect(html).not.toMatch(/<style|\sstyle=|\son\w+=/);
    }
    const script = await fetch(api.url + '/dashboard/assets/dashboard.js');
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(script.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await fetch(api.url + '/dashboard/assets/dashboard.css')).headers.get('content-type')).toMatch(/^text\/css/);
    expect((await fetch(api.url + '/dashboard/assets/..%2Fcheckout.js')).status).toBe(404);
    expect((await fetch(api.url + '/dashboard/assets/package.json')).status).toBe(404);
  });
});

import { defineConfig } from 'playwright/test';
import { findChromium, LOOPBACK_ONLY_FLAGS, QUIET_FLAGS } from './e2e/support/chromium.ts';

// e2e runs the built dist/checkout.js (npm run build first) in a real Chromium, against the
// stub API over HTTP, with the merchant page on another origin. Servers start per worker.
export default defineConfig({
  testDir: 'e2e',
  workers: 2,
  fullyParallel: true,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 30_000,
  reporter: [['list'], ['json', { outputFile: 'reports/e2e.json' }]],
  use: {
    browserName: 'chromium',
    launchOptions: { executablePath: findChromium(), args: [...QUIET_FLAGS, ...LOOPBACK_ONLY_FLAGS] },
    // On a developer's machine a failed test keeps its trace (actions, DOM snapshots, network)
    // but no screencast: the screenshots cost Chromium's GPU and browser processes a third of
    // their CPU on every test, failing or not (checkout.spec, 26 tests: 17 s of 91 s). Under CI
    // none is recorded: CI keeps only what the run prints (each failure's error and call log),
    // never a trace file, and recording one for every test cost 57 of the e2e run's 389 CPU-s
    // (226 s against 199 s, one run each). Run the failing spec again locally for its trace.
    trace: process.env.CI ? 'off' : { mode: 'retain-on-failure', screenshots: false },
  },
});

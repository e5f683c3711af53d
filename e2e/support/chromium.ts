// Which Chromium to drive: $CHROMIUM_PATH, else Debian's, else Playwright's own download.
import { existsSync } from 'node:fs';
import { chromium } from 'playwright';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

export function findChromium(): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) {
    if (!existsSync(fromEnv)) throw new Error(`CHROMIUM_PATH is ${fromEnv}, but no file is there`);
    return fromEnv;
  }
  const system = CANDIDATES.find((path) => existsSync(path));
  if (system) return system;
  try {
    const bundled = chromium.executablePath();
    if (existsSync(bundled)) return undefined; // Playwright finds its own build by itself
  } catch {
    // no Playwright browser either
  }
  throw new Error(
    'No Chromium found. Install one of: Debian/Ubuntu `apt-get install chromium`; ' +
      "or Playwright's build with `npx playwright install chromium`; or set CHROMIUM_PATH.",
  );
}

/**
 * Features Chromium runs without: Chromium reads only the last `--disable-features`, so this
 * list carries Playwright's own (its chromiumSwitches: PaintHolding, HttpsUpgrades, ...), which
 * a second flag would otherwise drop, and adds:
 * - Translate and AutofillServerCommunication: calls off the machine;
 * - the omnibox's WebUI popups: a headless window has no address bar, yet Chromium 156 loads
 *   two chrome://omnibox-popup.top-chrome pages for every window, that is every test's browser
 *   context (seen with CDP's Target.getTargets: two per context; WebUIOmniboxPopup takes one
 *   away, WebUIOmniboxAimPopup the other). Their renderer was the e2e run's busiest process
 *   after the test pages': checkout.spec took 87 CPU-s of Chromium with them, 47 without.
 */
const DISABLED_FEATURES = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'Translate',
  'AutofillServerCommunication',
  'WebUIOmniboxPopup',
  'WebUIOmniboxAimPopup',
];

/** Keeps Chromium off the network (on a closed machine its background calls fail noisily) and idle where no test looks. */
export const QUIET_FLAGS = [
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-domain-reliability',
  `--disable-features=${DISABLED_FEATURES.join(',')}`,
  '--no-first-run',
  '--no-default-browser-check',
  '--metrics-recording-only',
];

/**
 * Keeps every test on loopback without intercepting requests (Playwright's routing would
 * answer CORS preflights itself and hide whether the API's CORS works): everything but
 * loopback goes through a proxy on a port where nothing listens, so it fails at once.
 */
export const LOOPBACK_ONLY_FLAGS = ['--proxy-server=http://127.0.0.1:9', '--proxy-bypass-list=<-loopback>;127.0.0.1;localhost;[::1]'];

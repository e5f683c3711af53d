// Passkeys before money moves in a real Chromium with its virtual authenticator
// (CDP WebAuthn.addVirtualAuthenticator: a real passkey, signed by Chromium, verified by the
// service with @simplewebauthn/server): the owner adds a passkey in Security (ten recovery codes
// shown once), five minutes pass on the service's clock, and setting a new live payout address
// is refused 403 step_up_required; the dashboard asks for the passkey, the virtual authenticator
// signs the service's challenge (its counter goes up), and the address is taken on the retry
// (pending: a live address, a chain's first too, waits the operator's delay).
// The address typed before the screen's load lands (held back a second) stays as typed.
// The relying party is the public URL's host (localhost: an IP address cannot be one). axe
// (WCAG 2.2 A and AA) finds nothing on the Security screen and the prompt. Needs `npm run build`.
import { createServer } from 'node:net';
import type { Page } from 'playwright/test';
import { startService, type Service } from '../server/service/app.ts';
import { cheapPasswords } from '../server/testing/passwords.ts';
import { axeViolations } from './support/axe.ts';
import { expect, test } from './support/fixtures.ts';
import { checkAnswers } from './support/conformance.ts';

const ADMIN = 'op_factors_e2e_token_0123456789abcdef0123456789ab';
// A live network whose chain is never called (jobs off; dev: not checked at start).
const LIVE = {
  chainId: 56,
  name: 'BNB Smart Chain',
  rpcUrls: ['http://127.0.0.1:9'],
  confirmations: 3,
  factory: '0x00000000000000000000000000000000000000f1' as const,
  tokens: [],
  dev: true,
};
const ADDRESS = '0x52908400098527886E0F7030069857D2E4169EE7';

async function axe(page: Page, where: string) {
  const violations = await axeViolations(page);
  expect(violations.flatMap((v) => v.nodes.map((n) => `${where}: ${v.id} at ${JSON.stringify(n.target)}: ${n.failureSummary}`))).toEqual([]);
}

/** A port free now, for a service whose public URL must name it before it listens. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

let api: Service;
/** The service's clock runs this far ahead of the machine's (the test moves it: no sleeps). */
let ahead = 0;
test.beforeAll(async () => {
  const port = await freePort();
  api = await startService({
    adminToken: ADMIN,
    ...cheapPasswords,
    port,
    publicUrl: `http://localhost:${port}`,
    networks: { live: [LIVE] },
    jobs: false,
    now: () => Date.now() + ahead,
  });
  await checkAnswers(api);
});
test.afterAll(async () => api?.close());

test('a passkey added in Security, then a live payout address after a passkey step-up', async ({ page }) => {
  test.setTimeout(60_000);
  const made = await fetch(`${api.url}/operator/v1/merchants`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Quay Passkeys', email: 'owner@quay-passkeys.example' }),
  });
  const { signInUrl } = (await made.json()).data as { signInUrl: string };
  expect(signInUrl).toMatch(/^http:\/\/localhost:\d+\//);

  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });

  await page.goto(signInUrl);
  await page.getByLabel('New password').fill('a long enough password');
  await page.getByLabel('The same password again').fill('a long enough password');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Home' })).toBeVisible();

  await page.getByRole('link', { name: 'Security' }).click();
  await expect(page.getByRole('heading', { name: 'Security' })).toBeVisible();
  await expect(page.getByText('None yet.')).toBeVisible();
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Passkey added.' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Recovery codes' }).getByRole('listitem')).toHaveCount(10);
  await expect(page.getByText('Passkey (passkey), added')).toBeVisible();
  const [held] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
  expect(held.rpId).toBe('localhost');
  await axe(page, 'security');

  // Five minutes later on the service's clock, a new live payout address needs the passkey again.
  // The screen's addresses come from the service a second late (a slow network, or a loaded
  // machine): the address typed before they land is kept as typed, not replaced by the empty list.
  ahead += 5 * 60_000 + 1000;
  let late = false;
  await page.route('**/api/v1/payout_address', async (route) => {
    if (route.request().method() === 'GET' && !late) {
      late = true;
      await new Promise((r) => setTimeout(r, 1000));
    }
    await route.continue();
  });
  const landed = page.waitForResponse((r) => r.url().endsWith('/api/v1/payout_address') && r.request().method() === 'GET');
  await page.getByRole('link', { name: 'Settings' }).click();
  const field = page.getByLabel('Payout address on BNB Smart Chain');
  await field.fill(ADDRESS);
  await landed;
  await expect(field).toHaveValue(ADDRESS);
  await page.keyboard.press('Enter');
  const prompt = page.getByRole('dialog', { name: 'Confirm it is you' });
  await expect(prompt).toBeVisible();
  await axe(page, 'step-up prompt');
  await prompt.getByRole('button', { name: 'Use my passkey' }).click();
  await expect(prompt).toHaveCount(0);
  // A live address waits the operator's delay, a chain's first too.
  await expect(page.getByRole('status').filter({ hasText: 'New payout address on BNB Smart Chain pending' })).toBeVisible();

  // The service holds the address, the authenticator signed once more, and the log says who stepped up.
  const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
  const waiting = await (await fetch(`${api.url}/api/v1/destination_changes`, { headers: { cookie, 'x-mode': 'live' } })).json();
  expect(waiting.data).toEqual([expect.objectContaining({ kind: 'payout_address', chain_id: 56, address: ADDRESS, state: 'pending' })]);
  const [after] = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials;
  expect(after.signCount).toBeGreaterThan(held.signCount);
  const log = await (await fetch(`${api.url}/api/v1/audit_log`, { headers: { cookie, 'x-mode': 'live' } })).json();
  expect(log.data.map((r: { action: string }) => r.action)).toEqual(
    expect.arrayContaining(['POST /dashboard/api/step-up', 'PUT /api/v1/payout_address', 'POST /dashboard/api/factors/passkey']),
  );
});

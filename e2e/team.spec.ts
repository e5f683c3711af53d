// A team in a real Chromium, on a live dev chain: the owner requires a second factor
// of every member and invites a finance member and a viewer from Members; each invitation is
// read from a real SMTP server this test starts (smtp-server), its link opened: /dashboard/join
// signs the member in and sends them to Security, where they add a passkey (CDP's virtual
// authenticator, a real one verified by the service). The viewer's money requests, sent from
// the page itself, are answered 403. The finance member signs in again with the password and
// then the passkey, withdraws live USDT from the Withdrawals screen after the passkey
// step-up the dashboard asks for, and is asked again for a refund (a step-up opens one request).
// Each change of the owner asks for the passkey for itself. The Audit screen shows each step with who
// did it. A restricted read-only key, made on the Restricted keys screen, reads payments and is
// refused a refund and a withdrawal, then revoked there and refused. The viewer's navigation
// lacks the money screens, and the URL of one says the role cannot see it. Five minutes later the same
// passkey answer replayed steps up nothing, five wrong codes lock the finance member's codes and
// the owner unlocks them from Members, and a member removed while signed in is signed out.
// Needs `npm run build`.
import { createServer } from 'node:net';
import type { BrowserContext, Page } from 'playwright/test';
import { parseUnits } from 'viem';
import { startService, type Service } from '../server/service/app.ts';
import { cheapPasswords } from '../server/testing/passwords.ts';
import { startSmtp } from '../server/testing/smtp.ts';
import { startDevChain, TEST_BLOCK_SECONDS, type DevChain } from '../devchain/anvil.ts';
import { deployDevContracts, devAccount, devNetwork } from '../devchain/deploy.ts';
import { DEV_CHAIN_POWERS, devTransfer } from '../devchain/sandbox.ts';
import { axeViolations } from './support/axe.ts';
import { expect, test } from './support/fixtures.ts';
import { checkAnswers } from './support/conformance.ts';

const ADMIN = 'op_team_e2e_token_0123456789abcdef0123456789abcd';
const PASSWORD = 'a long enough password';

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

let api: Service;
let chain: DevChain;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let network: ReturnType<typeof devNetwork>;
/** The service's clock runs this far ahead of the machine's (moved once, at the end: no sleeps). */
let ahead = 0;
test.beforeAll(async () => {
  test.setTimeout(120_000);
  smtp = await startSmtp();
  chain = await startDevChain({ blockTimeSeconds: TEST_BLOCK_SECONDS });
  network = devNetwork(chain.url, await deployDevContracts(chain, 3, '1000000'), 1);
  const port = await freePort();
  api = await startService({
    adminToken: ADMIN,
    ...cheapPasswords,
    port,
    publicUrl: `http://localhost:${port}`,
    networks: { live: [network] },
    devChain: DEV_CHAIN_POWERS,
    smtpUrl: smtp.url,
    mailRetryMs: 100,
    newDestinationDelayMs: 0,
    signInsPerClient: 10_000,
    watchIntervalMs: 100,
    sweepIntervalMs: 300,
    jobIntervalMs: 200,
    now: () => Date.now() + ahead,
  });
  await checkAnswers(api);
});
test.afterAll(async () => {
  await api?.close();
  await chain?.stop();
  await smtp?.close();
});

async function axe(page: Page, where: string) {
  const violations = await axeViolations(page);
  expect(violations.flatMap((v) => v.nodes.map((n) => `${where}: ${v.id} at ${JSON.stringify(n.target)}: ${n.failureSummary}`))).toEqual([]);
}

/** A context with its own virtual authenticator (a member's own device). */
async function device(context: BrowserContext) {
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return page;
}

/** The page's own request to the service, with its session's cookie and CSRF token, as the dashboard's are. */
/** The step-up prompt a stepped-up change opens (each change asks, for itself), answered with the passkey. */
async function withPasskey(page: Page) {
  const prompt = page.getByRole('dialog', { name: 'Confirm it is you' });
  await prompt.getByRole('button', { name: 'Use my passkey' }).click();
  await expect(prompt).toHaveCount(0);
}

const fromPage = (page: Page, method: string, path: string, body?: unknown) =>
  page.evaluate(
    async ({ method, path, body }) => {
      const csrf = (await (await fetch('/dashboard/api/session')).json()).data.csrfToken as string;
      const response = await fetch(path, {
        method,
        headers: { 'content-type': 'application/json', 'x-mode': 'live', 'x-csrf-token': csrf },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    { method, path, body },
  );

async function until<T>(what: string, probe: () => Promise<T | false | undefined>): Promise<T> {
  for (const end = Date.now() + 90_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
    const value = await probe();
    if (value) return value;
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The invitation to `email`, as it arrived at the SMTP server: its link. */
const invitationTo = (email: string) =>
  until(`the invitation to ${email}`, async () => {
    const mail = smtp.received.find((m) => m.to.includes(email) && m.text.includes('/dashboard/join#invitation='));
    return mail && /https?:\/\/\S+\/dashboard\/join#invitation=[\w-]+/.exec(mail.text)![0];
  });

/** Opens the invitation, joins with `email`, is sent to Security (the owner requires a factor) and adds a passkey. */
async function join(page: Page, link: string, email: string) {
  expect(link).toMatch(/^http:\/\/localhost:\d+\/dashboard\/join#invitation=/);
  await page.goto(link);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('The same password again').fill(PASSWORD);
  await page.getByRole('button', { name: 'Join and sign in' }).click();
  await expect(page.getByRole('heading', { name: 'Security' })).toBeVisible();
  await expect(page.getByText('The owner requires a second factor')).toBeVisible();
  expect(new URL(page.url()).hash).toBe('');
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Passkey added.' })).toBeVisible();
}

test('the owner invites a finance member and a viewer by e-mail; both add passkeys; only finance moves money, after a step-up; the audit log says who did each', async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const made = await (
    await fetch(`${api.url}/operator/v1/merchants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Quay Team', email: 'owner@quay-team.example' }),
    })
  ).json();
  const liveKey = made.data.keys.live.secretKey as string;
  const key = (k: string) => ({ authorization: `Bearer ${k}`, 'content-type': 'application/json' });

  // A live customer pays 20 USDT on the chain (balance settlement): money to move.
  expect((await fetch(`${api.url}/api/v1/settlement`, { method: 'PUT', headers: key(liveKey), body: JSON.stringify({ settlement: 'balance' }) })).status).toBe(
    200,
  );
  const paid = await (
    await fetch(`${api.url}/api/v1/transaction/initialize`, {
      method: 'POST',
      headers: key(liveKey),
      body: JSON.stringify({ reference: 'quay-1', coin: 'USDT', currency: 'USD', amount: 20 }),
    })
  ).json();
  expect(paid.data?.address, JSON.stringify(paid)).toBeTruthy();
  await devTransfer(network, network.tokens[0]!.address as `0x${string}`, paid.data.address, parseUnits('20', 18));

  // The owner signs in, adds a passkey (the requirement holds for the owner too), requires a
  // second factor of every member, and invites two (each change stepped up for itself).
  const page = await device(await browser.newContext());
  await page.goto(made.data.signInUrl);
  await page.getByLabel('New password').fill(PASSWORD);
  await page.getByLabel('The same password again').fill(PASSWORD);
  await page.keyboard.press('Enter');
  await expect(page.getByRole('heading', { name: 'Home' })).toBeVisible();
  await page.getByRole('link', { name: 'Security' }).click();
  await page.getByRole('button', { name: 'Add a passkey' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Passkey added.' })).toBeVisible();
  await page.getByRole('link', { name: 'Members' }).click();
  await expect(page.getByRole('row', { name: /owner@quay-team.example/ })).toBeVisible();
  await page.getByLabel('Require a second factor of every member').check();
  await withPasskey(page);
  await expect(page.getByRole('status').filter({ hasText: 'Saved.' })).toBeVisible();
  for (const [email, role] of [
    ['fin@quay-team.example', 'finance'],
    ['vera@quay-team.example', 'viewer'],
  ]) {
    await page.getByLabel('E-mail').fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption(role);
    await page.getByRole('button', { name: 'Invite' }).click();
    await withPasskey(page);
    await expect(page.getByRole('status').filter({ hasText: `Invitation e-mailed to ${email}.` })).toBeVisible();
  }
  // E-mail is on: the link went to the address only, never to the inviter's screen.
  await expect(page.locator('#invitation-link')).toHaveCount(0);
  await axe(page, 'members');

  // A restricted read-only key, made on its screen (Developers links to it): listed with who made
  // it, its secret shown once; it reads payments, and is refused a refund and a withdrawal.
  await page.getByRole('link', { name: 'Developers' }).click();
  await page.getByRole('link', { name: 'Restricted keys' }).click();
  await expect(page.getByRole('heading', { name: 'Restricted keys (live)' })).toBeVisible();
  await page.getByLabel('Name').fill('reports');
  await page.getByLabel('payments.read', { exact: true }).check();
  await page.getByLabel('balances.read', { exact: true }).check();
  await page.getByRole('button', { name: 'Make the live key' }).click();
  await withPasskey(page);
  await expect(page.getByRole('heading', { name: 'Copy the new key now' })).toBeVisible();
  const secret = (await page.locator('#new-secret').textContent())!.trim();
  const listed = page.getByRole('row', { name: /^reports/ });
  await expect(listed.getByRole('cell', { name: 'owner', exact: true })).toBeVisible();
  await expect(listed).toContainText('balances.read, payments.read');
  await axe(page, 'keys');
  const withKey = (method: string, path: string, body?: unknown) =>
    fetch(`${api.url}${path}`, { method, headers: key(secret), body: body === undefined ? undefined : JSON.stringify(body) });
  expect((await withKey('GET', '/api/v1/payments')).status).toBe(200);
  const noRefund = await withKey('POST', '/api/v1/refunds', { reference: 'quay-1', amount: '1', reason: 'test' });
  expect(noRefund.status).toBe(403);
  expect((await noRefund.json()).message).toContain('refunds.write');
  const refused = await (
    await withKey('POST', '/api/v1/withdrawals', { coin: 'USDT', chain_id: network.chainId, amount: '1', address: devAccount(9).address })
  ).json();
  expect(refused).toMatchObject({ code: 'permission_denied' });
  expect(refused.message).toContain('balances.write');
  // Revoked after a confirmation (checked in the dark scheme too): refused at once.
  await listed.getByRole('button', { name: 'Revoke reports' }).click();
  await page.emulateMedia({ colorScheme: 'dark' });
  await axe(page, 'keys, dark');
  await page.emulateMedia({ colorScheme: 'light' });
  await page.getByRole('button', { name: 'Revoke reports now' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Key reports revoked' })).toBeVisible();
  await expect(listed).toHaveCount(0);
  expect((await withKey('GET', '/api/v1/payments')).status).toBe(401);

  // Each opens their own e-mail's link on their own device.
  const viewer = await device(await browser.newContext());
  const veraLink = await invitationTo('vera@quay-team.example');
  // Another e-mail is refused on its field, and the link stays the invited person's.
  await viewer.goto(veraLink);
  await viewer.getByLabel('E-mail').fill('mallory@evil.example');
  await viewer.getByLabel('New password').fill(PASSWORD);
  await viewer.getByLabel('The same password again').fill(PASSWORD);
  await viewer.getByRole('button', { name: 'Join and sign in' }).click();
  await expect(viewer.getByLabel('E-mail')).toHaveAccessibleDescription(/another e-mail/);
  await axe(viewer, 'join');
  await join(viewer, veraLink, 'vera@quay-team.example');
  // The viewer's navigation offers no screen the role cannot use, and such a screen's URL says so.
  const viewerNav = viewer.getByRole('navigation', { name: 'Dashboard' });
  await expect(viewerNav.getByRole('link', { name: 'Payments' })).toBeVisible();
  for (const name of ['Swaps', 'Payouts', 'Withdrawals', 'Developers', 'Events', 'Members', 'Audit log'])
    await expect(viewerNav.getByRole('link', { name, exact: true }), name).toHaveCount(0);
  await viewer.goto(new URL('/dashboard/withdrawals', viewer.url()).href);
  await expect(viewer.getByRole('heading', { name: 'Your role cannot see this' })).toBeVisible();
  await expect(viewer.getByLabel('Amount', { exact: true })).toHaveCount(0);
  const finance = await device(await browser.newContext());
  const finLink = await invitationTo('fin@quay-team.example');
  await join(finance, finLink, 'fin@quay-team.example');
  // The link, used, opens nothing a second time.
  const again = await browser.newContext();
  const second = await again.newPage();
  await second.goto(finLink);
  await second.getByLabel('E-mail').fill('fin@quay-team.example');
  await second.getByLabel('New password').fill(PASSWORD);
  await second.getByLabel('The same password again').fill(PASSWORD);
  await second.getByRole('button', { name: 'Join and sign in' }).click();
  await expect(second.getByRole('alert')).toContainText('This invitation was used already');
  await again.close();

  // The viewer cannot move money: the service refuses the requests themselves, sent from the page.
  for (const [path, body] of [
    ['/api/v1/withdrawals', { coin: 'USDT', chain_id: network.chainId, amount: '1', address: devAccount(9).address }],
    ['/api/v1/refunds', { reference: 'quay-1', amount: '1', reason: 'test' }],
  ] as const) {
    const refused = await fromPage(viewer, 'POST', path, body);
    expect(refused.status, JSON.stringify(refused.body)).toBe(403);
    expect(refused.body.code).toBe('permission_denied');
  }

  // The money arrived; the finance member signs in again: the password, then the passkey.
  await until('the live USDT available', async () => {
    const lines = (await (await fetch(`${api.url}/api/v1/balances`, { headers: key(liveKey) })).json()).data as Array<{ coin: string; available: string }>;
    return Number(lines.find((l) => l.coin === 'USDT')?.available ?? 0) >= 20;
  });
  await finance.getByRole('button', { name: 'Sign out' }).click();
  await finance.getByLabel('E-mail').fill('fin@quay-team.example');
  await finance.getByLabel('Password').fill(PASSWORD);
  await finance.getByRole('button', { name: 'Sign in' }).click();
  await withPasskey(finance);
  await expect(finance.getByRole('heading', { name: 'Home' })).toBeVisible();
  const stepUps: string[] = [];
  finance.on('request', (r) => void (r.url().endsWith('/dashboard/api/step-up') && r.method() === 'POST' && stepUps.push(r.postData() ?? '')));
  await finance.getByRole('link', { name: 'Withdrawals' }).click();
  await finance.getByLabel('Coin').selectOption(`USDT/${network.chainId}`);
  await finance.getByLabel('Wallet address').fill(devAccount(9).address);
  await finance.getByLabel('Amount', { exact: true }).fill('1');
  await finance.getByRole('button', { name: 'Withdraw' }).click();
  const prompt = finance.getByRole('dialog', { name: 'Confirm it is you' });
  await expect(prompt).toBeVisible();
  await prompt.getByRole('button', { name: 'Use my passkey' }).click();
  await expect(prompt).toHaveCount(0);
  await expect(finance.getByRole('status').filter({ hasText: /Withdrawal .* pending: 1 USDT/ })).toBeVisible();
  expect(stepUps).toHaveLength(1);
  // The withdrawal's step-up opened the withdrawal alone: a refund asks again.
  const refund = await fromPage(finance, 'POST', '/api/v1/refunds', { reference: 'quay-1', amount: '10', reason: 'one bag was broken' });
  expect(refund.status, JSON.stringify(refund.body)).toBe(403);
  expect(refund.body.code).toBe('step_up_required');

  // The owner's Audit screen: each step, with who did it.
  await page.getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('heading', { name: 'Audit log' })).toBeVisible();
  const rows = page.getByRole('table', { name: 'Who did what, newest first' }).getByRole('row');
  // The owner is labelled 'owner' by the API's rows and by their e-mail by the second factors' (the owner's either way).
  const OWNER = /^owner(@quay-team\.example)?$/;
  for (const [who, what] of [
    [OWNER, 'PUT /dashboard/api/factors/policy'],
    [OWNER, 'POST /api/v1/members/invitations'],
    ['vera@quay-team.example', 'POST /dashboard/api/invitation'],
    ['vera@quay-team.example', 'POST /dashboard/api/factors/passkey'],
    ['fin@quay-team.example', 'POST /dashboard/api/invitation'],
    ['fin@quay-team.example', 'POST /dashboard/api/factors/passkey'],
    ['fin@quay-team.example', 'POST /dashboard/api/step-up'],
    ['fin@quay-team.example', 'POST /api/v1/withdrawals'],
    [OWNER, 'POST /api/v1/keys/restricted'],
  ] as Array<[string | RegExp, string]>) {
    await expect(
      rows
        .filter({ has: page.getByRole('cell', { name: who, exact: true }) })
        .filter({ hasText: what })
        .first(),
      `${String(who)}: ${what}`,
    ).toBeVisible();
  }
  await axe(page, 'audit');
  // Filtered by who: the finance member's steps only.
  await page.getByLabel('Who').selectOption({ label: 'fin@quay-team.example (member)' });
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(rows.filter({ hasText: 'POST /api/v1/withdrawals' })).toHaveCount(1);
  await expect(rows.filter({ hasText: 'owner' })).toHaveCount(0);
  await expect(rows.filter({ hasText: 'vera@' })).toHaveCount(0);

  // Five minutes on, the passkey answer that stepped up, sent again, opens nothing.
  ahead += 5 * 60_000 + 1000;
  const replayed = await finance.evaluate(async (body) => {
    const csrf = (await (await fetch('/dashboard/api/session')).json()).data.csrfToken as string;
    return (
      await fetch('/dashboard/api/step-up', { method: 'POST', headers: { 'content-type': 'application/json', 'x-mode': 'live', 'x-csrf-token': csrf }, body })
    ).status;
  }, stepUps[0]!);
  expect(replayed).toBe(400);
  const late = await fromPage(finance, 'POST', '/api/v1/refunds', { reference: 'quay-1', amount: '1', reason: 'late' });
  expect(late.status).toBe(403);
  expect(late.body.code).toBe('step_up_required');

  // Five wrong codes lock the finance member's codes, from their page; the owner unlocks them
  // from Members (it was API only), confirming with the passkey.
  const wrongCodes = await finance.evaluate(async () => {
    const csrf = (await (await fetch('/dashboard/api/session')).json()).data.csrfToken as string;
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const body = JSON.stringify({ code: '000000', for: { method: 'POST', path: '/api/v1/withdrawals' } });
      statuses.push(
        (
          await fetch('/dashboard/api/step-up', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-mode': 'live', 'x-csrf-token': csrf },
            body,
          })
        ).status,
      );
    }
    return statuses;
  });
  expect(wrongCodes).toEqual([400, 400, 400, 400, 403]);
  await page.getByRole('link', { name: 'Members' }).click();
  await page.getByRole('button', { name: 'Unlock second factor of fin@quay-team.example' }).click();
  await withPasskey(page);
  await expect(page.getByRole('status').filter({ hasText: 'Unlocked: totp' })).toBeVisible();

  // The viewer removed from Members while signed in is signed out at once.
  await page.getByRole('link', { name: 'Members' }).click();
  await expect(page.getByLabel('Role of fin@quay-team.example')).toHaveValue('finance');
  await expect(page.getByLabel('Role of vera@quay-team.example')).toHaveValue('viewer');
  await page.getByRole('button', { name: 'Remove vera@quay-team.example' }).click();
  // The owner is asked for the passkey again, for this removal.
  await withPasskey(page);
  await expect(page.getByRole('status').filter({ hasText: 'vera@quay-team.example removed' })).toBeVisible();
  await viewer.reload();
  await expect(viewer.getByRole('heading', { name: 'Sign in' })).toBeVisible();
});

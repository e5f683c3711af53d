import { expect, test } from 'playwright/test';

// The browser the suite drives, as playwright.config.ts launches it (QUIET_FLAGS): each test's
// context is a new window, and a window must bring no page of Chromium's own UI with it. Chromium
// 156 loaded two omnibox popups (WebUI pages) for every window, headless or not, which cost more
// CPU than any test page; a Chromium that renames the feature brings them back, and this fails.
test('a new browser context opens only its own page: no page of the browser UI comes with it', async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('data:text/html,<title>only this</title>');
  const cdp = await browser.newBrowserCDPSession();
  const { targetInfos } = (await cdp.send('Target.getTargets')) as { targetInfos: Array<{ type: string; url: string }> };
  await cdp.detach();
  const ours = targetInfos.filter((target) => target.url.startsWith('data:text/html'));
  expect(ours.length).toBeGreaterThan(0); // the look itself works: it finds the test's page
  expect(
    targetInfos.filter((target) => target.type === 'browser_ui' || target.url.startsWith('chrome://')).map((target) => `${target.type} ${target.url}`),
  ).toEqual([]);
  await context.close();
});

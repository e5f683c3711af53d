import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright/test';
import { expect } from './fixtures.ts';

// WCAG 2.2 A and AA, and axe's best practices too (they caught a second <main> landmark
// inside the modal, on a page that has its own).
const RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** axe on the modal as it is now, its shadow root included. */
export async function expectNoViolations(page: Page, screen: string) {
  const { violations } = await new AxeBuilder({ page }).include('[data-service-checkout]').withTags(RULES).analyze();
  const found = violations.flatMap((v) => v.nodes.map((n) => `${screen}: ${v.id} at ${JSON.stringify(n.target)}: ${n.failureSummary}`));
  expect(found).toEqual([]);
}

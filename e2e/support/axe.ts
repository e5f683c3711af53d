import { createRequire } from 'node:module';
import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright/test';
import { expect } from './fixtures.ts';

// WCAG 2.2 A and AA, and axe's best practices too (they caught a second <main> landmark
// inside the modal, on a page that has its own).
export const RULES = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/** What a test reads of a violation. */
export interface Violation {
  id: string;
  nodes: Array<{ target: unknown; failureSummary?: string }>;
}

// The axe-core that @axe-core/playwright itself would inject.
const AXE_SOURCE = (createRequire(import.meta.resolve('@axe-core/playwright'))('axe-core') as { source: string }).source;

/**
 * axe (RULES) on the page as it is now, only `include` (a selector; its shadow root included)
 * when given. axe-core is put in the document once and axe.run there, as AxeBuilder's legacy
 * mode runs it: AxeBuilder's analyze() evaluates its 600 kB source again on every call and
 * opens a blank page to finish each run, four to five times the run itself on a loaded
 * machine, for frames of other origins. No page here has a frame; one that has is left to
 * AxeBuilder whole, so nothing is checked less.
 */
export async function axeViolations(page: Page, include?: string): Promise<Violation[]> {
  if (page.frames().length > 1) {
    const builder = new AxeBuilder({ page }).withTags(RULES);
    return (await (include ? builder.include(include) : builder).analyze()).violations;
  }
  const injected = () => page.evaluate(() => typeof (window as unknown as { axe?: { run?: unknown } }).axe?.run === 'function');
  if (!(await injected())) await page.evaluate(AXE_SOURCE);
  return page.evaluate(
    async ({ context, tags }) => {
      const axe = (window as unknown as { axe: typeof import('axe-core') }).axe;
      const { violations } = await axe.run(context, { runOnly: { type: 'tag', values: tags } });
      return violations.map((v) => ({ id: v.id, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
    },
    // The context AxeBuilder gives axe: everything, or only what `include` selects.
    { context: { include: include ? [include] : [], exclude: [] }, tags: RULES },
  );
}

/** axe on the modal as it is now, its shadow root included. */
export async function expectNoViolations(page: Page, screen: string) {
  const violations = await axeViolations(page, '[data-service-checkout]');
  const found = violations.flatMap((v) => v.nodes.map((n) => `${screen}: ${v.id} at ${JSON.stringify(n.target)}: ${n.failureSummary}`));
  expect(found).toEqual([]);
}

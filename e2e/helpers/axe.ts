import AxeBuilder from '@axe-core/playwright';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/**
 * Every serious and critical violation axe finds on the page as it is, toasts and open menus
 * included, one line each with where. `experimental` adds label-content-name-mismatch, one of
 * axe's experimental rules (off unless asked for): a control's name must contain the text it
 * shows, for those who speak to their computer.
 */
export async function seriousViolations(page: Page, { experimental = false } = {}): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page })
    .options({
      // Every node of a violation, and at most one of the passes and the undecided: axe's unique
      // selector for every passing node is most of its time on a long page (axe's resultTypes).
      resultTypes: ['violations'],
      ...(experimental ? { rules: { 'label-content-name-mismatch': { enabled: true } } } : {}),
    })
    .analyze();
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${n.target.join(' ')}: ${n.failureSummary?.replace(/\s+/g, ' ')}`).join('\n')}`);
}

/** The page is in the theme asked for, and axe finds nothing serious or critical (its experimental name rule too). */
export async function expectAccessibleIn(page: Page, theme: 'light' | 'dark', where: string): Promise<void> {
  await expect.poll(() => page.evaluate(() => document.documentElement.classList.contains('dark')), { message: where }).toBe(theme === 'dark');
  const found = await seriousViolations(page, { experimental: true });
  expect(found, `${theme} ${where}:\n${found.join('\n')}`).toEqual([]);
}

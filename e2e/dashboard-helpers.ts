import type { Page } from 'playwright-core';
import { expect } from 'vitest';

/** Waits until the text shows (a toast, a message), failing with the page's text when it does not. */
export async function expectText(page: Page, text: string | RegExp, timeout = 10_000): Promise<void> {
  try {
    await page.getByText(text).first().waitFor({ state: 'visible', timeout });
  } catch (e) {
    const body = await page.locator('body').innerText().catch(() => '');
    throw new Error(`"${String(text)}" never showed. Page text:\n${body.slice(0, 3000)}`, { cause: e });
  }
}

/** A toast with its title and description (sonner renders both in one list item). */
export async function expectToast(page: Page, title: string, description?: string): Promise<void> {
  const toast = page.locator('[data-sonner-toast]').filter({ hasText: title });
  await toast.first().waitFor({ state: 'visible', timeout: 10_000 });
  if (description !== undefined) await expect(toast.first().innerText()).resolves.toContain(description);
}

/** Goes to a dashboard section through the sidebar, as a person would. */
export async function openSection(page: Page, name: 'Dashboard' | 'Services' | 'Billing' | 'Settings' | 'Account' | 'Admin Dashboard') {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: name === 'Admin Dashboard' ? 'Admin Dashboard' : name }).waitFor();
}


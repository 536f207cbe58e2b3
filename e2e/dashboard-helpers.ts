import type { Page } from 'playwright-core';

/** Goes to a dashboard section through the sidebar, as a person would. */
export async function openSection(page: Page, name: 'Dashboard' | 'Services' | 'Billing' | 'Settings' | 'Account' | 'Admin Dashboard') {
  await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: name === 'Admin Dashboard' ? 'Admin Dashboard' : name }).waitFor();
}


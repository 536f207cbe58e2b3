import type { Page } from 'playwright-core';

/** Below 768 px the sidebar is a drawer behind the header's Menu button: opens it and returns it. */
export async function openMenu(page: Page) {
  await page.getByRole('button', { name: 'Menu', exact: true }).click();
  const drawer = page.getByRole('dialog', { name: 'Menu' });
  await drawer.waitFor();
  return drawer;
}

/** Goes to a dashboard section through the sidebar, or on a phone through the drawer, as a person would. */
export async function openSection(page: Page, name: 'Dashboard' | 'Services' | 'Billing' | 'Settings' | 'Account' | 'Admin Dashboard') {
  const phone = (page.viewportSize()?.width ?? Infinity) < 768;
  const within = phone ? await openMenu(page) : page;
  await within.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name, exact: true }).click();
  await page.getByRole('heading', { level: 1, name: name === 'Admin Dashboard' ? 'Admin Dashboard' : name }).waitFor();
}

/**
 * Chooses one of a service page's less-used actions (Extend, Rename, Change key, Delete), which sit
 * in its More actions menu, as a person would: the menu's button, then the item by its name.
 */
export async function serviceAction(page: Page, service: string, item: string) {
  await page.getByRole('button', { name: `More actions for ${service}`, exact: true }).click();
  await page.getByRole('menu').getByRole('menuitem', { name: item, exact: true }).click();
}

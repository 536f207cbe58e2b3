import type { Page } from 'playwright-core';

/** Waits for a toast (sonner) that contains `text`. */
export async function waitForToast(page: Page, text: string): Promise<void> {
  await page.locator('[data-sonner-toast]').filter({ hasText: text }).first().waitFor();
}

/** Holds every request to `pattern` until the returned function is called: a slow network, to see a pending state. */
export async function holdRequests(page: Page, pattern: string): Promise<() => void> {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  await page.route(pattern, async (route) => {
    await gate;
    await route.continue();
  });
  return release;
}

/**
 * Moves the pointer a little once the page has loaded, as a person's hand does before a click: a
 * deferred form loads its code on it. (A person keeps moving; a test moves once, so it waits.)
 */
export async function stir(page: Page): Promise<void> {
  await page.waitForLoadState('networkidle');
  await page.mouse.move(5, 5);
  await page.mouse.move(40, 40);
}

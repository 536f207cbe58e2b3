import type { Page, Route } from 'playwright-core';

/** Waits until the text shows (a toast, a message), failing with the page's text when it does not. */
export async function expectText(page: Page, text: string | RegExp, timeout = 10_000): Promise<void> {
  try {
    await page.getByText(text).first().waitFor({ state: 'visible', timeout });
  } catch (e) {
    const body = await page
      .locator('body')
      .innerText()
      .catch(() => '');
    throw new Error(`"${String(text)}" never showed. Page text:\n${body.slice(0, 3000)}`, { cause: e });
  }
}

/** A toast with its title and description (sonner renders both in one list item). */
export async function expectToast(page: Page, title: string, description?: string): Promise<void> {
  // The toast with this title and description: an earlier one with the same title (a second failure
  // of the same action) may still be on screen, and is not the one this step is waiting for. Seen
  // is enough: on a busy machine it may close before it could be read again.
  const titled = page.locator('[data-sonner-toast]').filter({ hasText: title });
  const toast = description === undefined ? titled : titled.filter({ hasText: description });
  try {
    await toast.first().waitFor({ state: 'visible', timeout: 10_000 });
  } catch (e) {
    const shown = await page
      .locator('[data-sonner-toast]')
      .allInnerTexts()
      .catch(() => []);
    throw new Error(`The toast "${title}" never showed. Toasts on screen: ${JSON.stringify(shown)}`, { cause: e });
  }
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

/** A route handler that answers with `body` as JSON and `status`, in place of the server. */
export const answerJson = (status: number, body: unknown) => (r: Route) => r.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });

/** A route handler that answers as a failing database does through the API: 500 with an SQLSTATE. */
export const serverError = answerJson(500, { message: 'boom', code: 'XX000' });

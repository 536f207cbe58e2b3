import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, type TestUser } from '../test/helpers/users';
import { openMenu } from './dashboard-helpers';
import { expectText, expectToast } from './helpers/page-tools';
import { sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';

/** A common laptop and a common phone (issue 17). */
const WIDE: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

/** A service made through the API, as the New Service dialog does; the worker installs it. */
async function createService(user: TestUser, name: string, key: string, product: string): Promise<string> {
  const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: key, p_product_id: product });
  if (error) throw error;
  return (data as { id: string }).id;
}

/** Whether the focused element is inside `locator`. */
const holdsFocus = (locator: Locator) => locator.evaluate((el) => el.contains(document.activeElement));

/** The page is no wider than the window: nothing scrolls sideways. A failure names the last elements reaching past its edge. */
async function expectNoSidewaysScroll(page: Page, where: string) {
  const { scrollWidth, innerWidth, outside } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
    outside: [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
      .slice(-5)
      .map((el) => `${el.tagName.toLowerCase()}.${el.className}: ${el.textContent?.slice(0, 40)}`),
  }));
  expect(scrollWidth, `${where}; sticking out: ${outside.join(' | ')}`).toBeLessThanOrEqual(innerWidth);
}

/** A wide table scrolls in its own box, which a keyboard can reach and which has a name. */
async function expectScrollBox(page: Page, table: string) {
  const box = page.getByRole('group', { name: `${table}, scrolls sideways`, exact: true });
  await expect(box.getAttribute('tabindex'), table).resolves.toBe('0');
  await expect(
    box.evaluate((el) => getComputedStyle(el).overflowX),
    table,
  ).resolves.toBe('auto');
  await expect(box.getByRole('table').count(), table).resolves.toBe(1);
}

/** Where the last `n` characters of the element's text are drawn, and the box that clips them. */
const tailAndBox = (code: Locator, n: number) =>
  code.evaluate((el, count) => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const texts: Text[] = [];
    while (walker.nextNode()) texts.push(walker.currentNode as Text);
    const last = texts[texts.length - 1]!;
    const range = document.createRange();
    range.setStart(last, Math.max(last.length - count, 0));
    range.setEnd(last, last.length);
    const tail = range.getBoundingClientRect();
    const box = el.getBoundingClientRect();
    return { tailLeft: tail.left, tailRight: tail.right, boxLeft: box.left, boxRight: box.right, windowWidth: window.innerWidth };
  }, n);

describe('the dashboard on a phone', () => {
  it('opens the navigation as a drawer from Menu, and closes it on a choice, Escape or a tap outside', async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const { page, errors } = await app.newPage(PHONE);
    await signIn(page, app.url, admin.email, admin.password);
    // The admin check has answered: the drawer lists Admin Dashboard.
    await page.waitForLoadState('networkidle');
    const menu = page.getByRole('button', { name: 'Menu', exact: true });
    // No sidebar beside the page on a phone.
    await expect(page.getByRole('button', { name: /^(Collapse|Expand) sidebar$/ }).count()).resolves.toBe(0);
    await expect(page.getByRole('navigation', { name: 'Dashboard' }).count()).resolves.toBe(0);

    let drawer = await openMenu(page);
    expect(await holdsFocus(drawer)).toBe(true);
    for (const label of ['Dashboard', 'Services', 'Billing', 'Settings', 'Account', 'Admin Dashboard']) {
      await expect(drawer.getByRole('link', { name: label, exact: true }).innerText(), label).resolves.toBe(label);
    }
    await expect(drawer.getByRole('button', { name: 'Sign out' }).innerText()).resolves.toBe('Sign out');

    // Escape closes it, and focus is back on Menu.
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'hidden' });
    await expect(holdsFocus(menu)).resolves.toBe(true);

    // A tap beside it, on the page, closes it.
    drawer = await openMenu(page);
    const box = (await drawer.boundingBox())!;
    expect(box.x + box.width).toBeLessThan(PHONE.width - 20);
    await page.mouse.click(PHONE.width - 10, PHONE.height / 2);
    await drawer.waitFor({ state: 'hidden' });
    await expect(holdsFocus(menu)).resolves.toBe(true);

    // The close button closes it.
    drawer = await openMenu(page);
    await drawer.getByRole('button', { name: 'Close menu' }).click();
    await drawer.waitFor({ state: 'hidden' });

    // A choice goes there and closes it.
    drawer = await openMenu(page);
    await drawer.getByRole('link', { name: 'Billing' }).click();
    await page.waitForURL(/\/dashboard\/billing$/);
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    await drawer.waitFor({ state: 'hidden' });
    await expect(holdsFocus(menu)).resolves.toBe(true);
    drawer = await openMenu(page);
    await drawer.getByRole('link', { name: 'Admin Dashboard' }).click();
    await page.getByRole('heading', { level: 1, name: 'Admin Dashboard' }).waitFor();
    await drawer.waitFor({ state: 'hidden' });

    // Turned to a wide screen with the drawer open: the sidebar is back and the drawer gone.
    drawer = await openMenu(page);
    await page.setViewportSize(WIDE);
    await drawer.waitFor({ state: 'hidden' });
    await page.getByRole('button', { name: 'Collapse sidebar' }).waitFor();
    await expect(menu.isVisible()).resolves.toBe(false);
    await page.setViewportSize(PHONE);

    drawer = await openMenu(page);
    await drawer.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    expect(errors).toEqual([]);
  });

  it('keeps the collapsible sidebar and no Menu button on a wide screen', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(WIDE);
    await signIn(page, app.url, user.email, user.password);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByText('Services', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Collapse sidebar' }).waitFor();
    await expect(page.getByRole('button', { name: 'Menu', exact: true }).isVisible()).resolves.toBe(false);
    expect(errors).toEqual([]);
  });

  it('scrolls no dashboard or admin page sideways at 390 px', async () => {
    const admin = await createTestUser(app.server, { admin: true, credits: 60, fullName: 'Grace Brewster Murray Hopper' });
    const kept = await createService(admin, 'wide-town-node-1', GALA_KEY, TOWN_STAR);
    await createService(admin, 'master-1', LICENCE_KEY, MASTER_NODE);
    const gone = await createService(admin, 'gone-1', `${'B'.repeat(43)}=`, TOWN_STAR);
    // A purchase, so that the billing page has its purchases table.
    await app.server.deps.db.query(`insert into public.credit_purchases (user_id, amount, status, provider) values ($1, 25, 'completed', 'paypal')`, [
      admin.id,
    ]);
    const { page, errors } = await app.newPage(PHONE);
    await signIn(page, app.url, admin.email, admin.password);

    // One service deleted once installed: the billing page lists it as unused.
    await page.goto(`${app.url}/dashboard/services`);
    await page.getByRole('article', { name: 'gone-1' }).getByText('Active', { exact: true }).waitFor({ timeout: 20_000 });
    const { error } = await admin.client.rpc('manage_service_operation', { p_service_id: gone, p_operation: 'delete' });
    if (error) throw error;

    await page.goto(`${app.url}/dashboard`);
    await page.getByRole('heading', { name: 'Quick-start guide' }).waitFor();
    await expectNoSidewaysScroll(page, '/dashboard');

    await page.goto(`${app.url}/dashboard/services`);
    await page.getByRole('article', { name: 'master-1' }).waitFor();
    await expectNoSidewaysScroll(page, '/dashboard/services, list');
    await page.getByRole('button', { name: 'Grid view' }).click();
    await expect(page.getByRole('button', { name: 'Grid view' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await expectNoSidewaysScroll(page, '/dashboard/services, grid');

    await page.goto(`${app.url}/dashboard/services/${kept}`);
    await page.getByRole('heading', { name: 'Event history' }).waitFor();
    await page
      .getByRole('img', { name: /^Today, / })
      .first()
      .waitFor();
    await expectNoSidewaysScroll(page, 'the service page');
    await page.getByRole('button', { name: 'Logs of wide-town-node-1' }).click();
    const logs = page.getByRole('dialog', { name: 'Logs' });
    await logs.getByLabel('Log lines').waitFor();
    await expectNoSidewaysScroll(page, 'the logs dialog');
    expect((await logs.boundingBox())!.width).toBeLessThanOrEqual(PHONE.width);
    await page.keyboard.press('Escape');

    await page.goto(`${app.url}/dashboard/billing`);
    const unused = page.getByRole('region', { name: 'Unused Purchased Services' });
    await unused.getByText('gone-1').waitFor({ timeout: 20_000 });
    await page.getByRole('region', { name: 'Purchase History' }).getByText('PayPal').first().waitFor();
    await expectText(page, 'Service creation for master-1 (Master Node)');
    await expectNoSidewaysScroll(page, '/dashboard/billing');
    await expectScrollBox(page, 'Unused services table');
    await expectScrollBox(page, 'Purchases table');
    // The presets wrap inside their card.
    const presets = page.getByRole('group', { name: 'Preset amounts' });
    const card = (await page.getByRole('region', { name: 'Add Funds' }).boundingBox())!;
    for (const preset of await presets.getByRole('button').all()) {
      const b = (await preset.boundingBox())!;
      expect(b.x).toBeGreaterThanOrEqual(card.x);
      expect(b.x + b.width).toBeLessThanOrEqual(card.x + card.width);
    }

    await page.goto(`${app.url}/dashboard/settings`);
    await page.getByRole('tab', { name: 'General' }).waitFor();
    await expectNoSidewaysScroll(page, '/dashboard/settings, General');
    await page.getByRole('tab', { name: 'Security' }).click();
    await page.getByRole('region', { name: 'Danger Zone' }).waitFor();
    await expectNoSidewaysScroll(page, '/dashboard/settings, Security');

    await page.goto(`${app.url}/dashboard/account`);
    await page.getByLabel('Company').waitFor();
    await expectNoSidewaysScroll(page, '/dashboard/account');

    await page.goto(`${app.url}/admin`);
    await page.getByRole('region', { name: 'Users' }).getByRole('row').filter({ hasText: admin.email }).waitFor();
    await expectNoSidewaysScroll(page, '/admin, User Management');
    await expectScrollBox(page, 'Users table');
    await page.getByRole('tab', { name: 'Fleet' }).click();
    // Its own row: the shared server's other admins have services of that name too.
    await page.getByRole('row').filter({ hasText: 'master-1' }).filter({ hasText: admin.email }).waitFor();
    await expectNoSidewaysScroll(page, '/admin, Fleet');
    await expectScrollBox(page, 'Fleet table');
    await page.getByRole('tab', { name: 'Contact Settings' }).click();
    await page.getByRole('region', { name: 'Contact Form Settings' }).waitFor();
    await expectNoSidewaysScroll(page, '/admin, Contact Settings');
    expect(errors).toEqual([]);
  });

  for (const [size, viewport] of [
    ['390 px', PHONE],
    ['1366 px', WIDE],
  ] as const) {
    it(`shows a masked key's last 4 characters after the same 8 dots whatever its length, in grid view at ${size}`, async () => {
      const user = await createTestUser(app.server, { credits: 20 });
      await createService(user, 'town-44-chars', GALA_KEY, TOWN_STAR);
      await createService(user, 'master-22-chars', LICENCE_KEY, MASTER_NODE);
      const { page, errors } = await app.newPage(viewport);
      await signIn(page, app.url, user.email, user.password);
      await page.goto(`${app.url}/dashboard/services`);
      await page.getByRole('button', { name: 'Grid view' }).click();
      for (const [name, key] of [
        ['town-44-chars', GALA_KEY],
        ['master-22-chars', LICENCE_KEY],
      ] as const) {
        const code = page.getByRole('article', { name }).locator('code');
        await expect(code.textContent(), name).resolves.toBe(`••••••••${key.slice(-4)}`);
        // Drawn inside its box and the window: not cut off.
        const r = await tailAndBox(code, 4);
        expect(r.tailLeft, name).toBeGreaterThanOrEqual(r.boxLeft);
        expect(r.tailRight, name).toBeLessThanOrEqual(r.boxRight);
        expect(r.tailRight, name).toBeLessThanOrEqual(r.windowWidth);
      }
      expect(errors).toEqual([]);
    });

    it(`shows toasts clear of the header's controls at ${size}`, async () => {
      const user = await createTestUser(app.server, { credits: 10 });
      await createService(user, 'toasted', GALA_KEY, TOWN_STAR);
      const { page, errors } = await app.newPage(viewport);
      await signIn(page, app.url, user.email, user.password);
      await page.goto(`${app.url}/dashboard/services`);
      await page.getByRole('article', { name: 'toasted' }).getByRole('button', { name: 'Copy API Key' }).click();
      await expectToast(page, 'API key copied to clipboard');
      const toast = page.locator('[data-sonner-toast]').first();
      const controls = [page.getByRole('button', { name: 'User menu' })];
      if (viewport === PHONE) controls.push(page.getByRole('button', { name: 'Menu', exact: true }));
      for (const control of controls) {
        // What is under the control's middle is the control itself, and a click would reach it.
        const onTop = await control.evaluate((el) => {
          const b = el.getBoundingClientRect();
          return el.contains(document.elementFromPoint(b.x + b.width / 2, b.y + b.height / 2));
        });
        expect(onTop).toBe(true);
        await control.click({ trial: true });
      }
      const t = (await toast.boundingBox())!;
      const header = (await page.locator('header').boundingBox())!;
      expect(t.y).toBeGreaterThanOrEqual(header.y + header.height);
      // Still showing: the checks above were made with the toast on screen.
      await expect(toast.isVisible()).resolves.toBe(true);
      expect(errors).toEqual([]);
    });
  }
});

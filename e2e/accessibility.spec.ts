import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { addCredits } from '../src/server/domain/credits';
import { installFailureText } from '../src/shared/install-failure';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, type TestUser } from '../test/helpers/users';
import { seriousViolations } from './helpers/axe';
import { expectText, expectToast, stir } from './helpers/page-tools';
import { sharedApp, type TestApp, type Viewport } from './helpers/app';

/** A common laptop and a common phone (issue 17). */
const DESKTOP: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };
const THEMES = ['light', 'dark'] as const;

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

/** A service as the New Service dialog makes it; the worker installs it within a second or two. */
async function order(user: TestUser, name: string, key: string, product: string): Promise<string> {
  const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: key, p_product_id: product });
  if (error) throw error;
  return (data as { id: string }).id;
}

async function serviceState(id: string): Promise<string> {
  const { rows } = await app.server.deps.db.query<{ state: string }>('select state::text from private.services where id = $1', [id]);
  return rows[0]!.state;
}

/**
 * An admin (so that the admin area is in the sweep) whose pages show what they can: active services
 * of both plans, a failed one with its reason, an unused one in Billing, a long transaction text,
 * and a purchase in every status. `dark` is saved in the profile, as the Settings switch does.
 */
async function seedAccount(dark: boolean): Promise<TestUser> {
  const user = await createTestUser(app.server, { admin: true, credits: 100, fullName: 'Ada Lovelace' });
  await addCredits(app.server.deps.db, user.id, 5, 'Goodwill credit for the node outage of 12 March, with our apologies for the rewards it cost you');
  const live = [await order(user, 'town-1', GALA_KEY, TOWN_STAR), await order(user, 'master-1', LICENCE_KEY, MASTER_NODE)];
  const gone = await order(user, 'gone-1', `${'B'.repeat(43)}=`, TOWN_STAR);
  await app.server.deps.db.query(
    `insert into private.services (user_id, name, api_key_encrypted, product_id, state, provisioning_error)
     values ($1, 'failed-1', private.encrypt_api_key($2), $3, 'failed', 'The engine refused the node')`,
    [user.id, `${'C'.repeat(43)}=`, TOWN_STAR],
  );
  for (const status of ['pending', 'completed', 'rejected', 'expired']) {
    await app.server.deps.db.query(`insert into public.credit_purchases (user_id, amount, status, provider) values ($1, 10, $2, 'paypal')`, [user.id, status]);
  }
  await app.server.deps.db.query(`insert into public.credit_purchases (user_id, amount, status, provider) values ($1, 7, 'completed', 'test')`, [user.id]);
  const { error } = await user.client.from('profiles').update({ darkmode_enabled: dark }).eq('id', user.id);
  if (error) throw error;
  // Deleted once installed: the Billing page lists it as unused.
  await expect.poll(() => serviceState(gone), { timeout: 20_000 }).toBe('active');
  const deleted = await user.client.rpc('manage_service_operation', { p_service_id: gone, p_operation: 'delete' });
  if (deleted.error) throw deleted.error;
  await expect.poll(() => serviceState(gone), { timeout: 20_000 }).toBe('deleted');
  for (const id of live) await expect.poll(() => serviceState(id), { timeout: 20_000 }).toBe('active');
  return user;
}

/** Follows a link or presses a button from the keyboard. */
const press = (target: Locator) => target.press('Enter');

/**
 * Signs in from the keyboard after a wrong password first, leaving an error toast and the
 * "Welcome back!" success toast on screen: Alt+T, sonner's own shortcut to the notifications,
 * expands them, and expanded toasts stay until the pointer leaves them or Escape is pressed in them.
 */
async function signInWithToasts(page: Page, user: TestUser): Promise<void> {
  await page.goto(`${app.url}/login`);
  await stir(page);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill('not-the-password');
  await press(page.getByLabel('Password'));
  await expectToast(page, 'Authentication Error');
  await page.keyboard.press('Alt+KeyT');
  await page.getByLabel('Password').fill(user.password);
  await press(page.getByLabel('Password'));
  await page.waitForURL(/\/dashboard$/);
  await expectToast(page, 'Welcome back!');
}

/** The toasts signInWithToasts leaves, one of each kind it shows. */
const SIGN_IN_TOASTS = ['Welcome back!', 'Authentication Error'];
/** The browser's own console line for the wrong password's 400: the only error these pages may log. */
const wrongPassword = (e: string) => /status of 400/.test(e);

/** The checks of one page state: the theme is the one asked for, the toasts show, and axe finds nothing serious. */
async function expectAccessible(page: Page, theme: (typeof THEMES)[number], where: string, toasts = SIGN_IN_TOASTS): Promise<void> {
  await page.waitForLoadState('networkidle');
  await expect(
    page.evaluate(() => document.documentElement.classList.contains('dark')),
    where,
  ).resolves.toBe(theme === 'dark');
  for (const title of toasts) {
    await expect(page.locator('[data-sonner-toast]').filter({ hasText: title }).isVisible(), `${where}: the toast "${title}"`).resolves.toBe(true);
  }
  const found = await seriousViolations(page, { experimental: true });
  expect(found, `${theme} ${where}:\n${found.join('\n')}`).toEqual([]);
}

/** The same with the user menu open, opened and closed from the keyboard. */
async function expectAccessibleWithUserMenu(page: Page, theme: (typeof THEMES)[number], where: string): Promise<void> {
  await press(page.getByRole('button', { name: /User menu/ }));
  await page.getByRole('menu').getByRole('menuitem', { name: 'Log out' }).waitFor();
  await expectAccessible(page, theme, `${where}, with the user menu open`);
  await page.keyboard.press('Escape');
  await page.getByRole('menu').waitFor({ state: 'detached' });
  // The menu gives the focus back to its button a moment after it goes: a key pressed on another
  // control meanwhile (the drawer's Menu) would land on this button instead.
  await page
    .getByRole('button', { name: /User menu/ })
    .and(page.locator(':focus'))
    .waitFor();
}

describe('accessibility of the signed-in pages', () => {
  for (const theme of THEMES) {
    it(`finds no serious or critical violation on any dashboard or admin page in the ${theme} theme, with toasts and the user menu open`, async () => {
      const user = await seedAccount(theme === 'dark');
      const { page, errors } = await app.newPage(DESKTOP);
      await signInWithToasts(page, user);
      const nav = page.getByRole('navigation', { name: 'Dashboard' });
      const go = async (section: string) => {
        await press(nav.getByRole('link', { name: section, exact: true }));
        await page.getByRole('heading', { level: 1, name: section }).waitFor();
      };

      await page.getByRole('heading', { name: 'Quick-start guide' }).waitFor();
      await expectAccessible(page, theme, '/dashboard');
      await expectAccessibleWithUserMenu(page, theme, '/dashboard');

      await go('Services');
      await page.getByRole('article', { name: 'failed-1' }).getByText(installFailureText('not_started')).waitFor();
      await expectAccessibleWithUserMenu(page, theme, '/dashboard/services, list');
      await press(page.getByRole('button', { name: 'Grid view' }));
      await expectAccessibleWithUserMenu(page, theme, '/dashboard/services, grid');

      await press(page.getByRole('article', { name: 'town-1' }).getByRole('link', { name: 'town-1' }));
      await page.getByRole('region', { name: 'Event history' }).waitFor();
      await expectText(page, 'Node installed');
      await expectAccessibleWithUserMenu(page, theme, '/dashboard/services/:id');

      await go('Billing');
      await page.getByText('Rejected', { exact: true }).waitFor();
      await page.getByRole('region', { name: 'Unused Purchased Services' }).getByText('gone-1').waitFor();
      await expectAccessibleWithUserMenu(page, theme, '/dashboard/billing');

      await go('Settings');
      await page.getByRole('tab', { name: 'General', selected: true }).waitFor();
      await page.getByRole('button', { name: 'Save' }).waitFor();
      await expectAccessibleWithUserMenu(page, theme, '/dashboard/settings');
      await press(page.getByRole('tab', { name: 'Security' }));
      await page.getByRole('region', { name: 'Danger Zone' }).waitFor();
      await page.getByRole('button', { name: 'Enable two-factor authentication' }).waitFor();
      await expectAccessibleWithUserMenu(page, theme, '/dashboard/settings/security');
      await press(page.getByRole('tab', { name: 'Notifications' }));
      await page.getByRole('switch', { name: 'Node down by E-mail' }).waitFor();
      await page.getByRole('switch', { name: 'Mute town-1' }).waitFor();
      await expectAccessibleWithUserMenu(page, theme, '/dashboard/settings/notifications');

      await go('Account');
      await page.getByLabel('Full name').waitFor();
      await expectAccessibleWithUserMenu(page, theme, '/dashboard/account');

      await go('Admin Dashboard');
      await page.getByRole('region', { name: 'Users' }).getByRole('row').filter({ hasText: user.email }).waitFor();
      await expectAccessibleWithUserMenu(page, theme, '/admin, User Management');
      await press(page.getByRole('tab', { name: 'Contact Settings' }));
      await page.getByRole('region', { name: 'Contact Form Settings' }).waitFor();
      await expectAccessibleWithUserMenu(page, theme, '/admin, Contact Settings');
      await press(page.getByRole('tab', { name: 'Fleet' }));
      await page.getByRole('region', { name: 'Fleet' }).getByRole('row').filter({ hasText: 'failed-1' }).filter({ hasText: user.email }).waitFor();
      await expectAccessibleWithUserMenu(page, theme, '/admin, Fleet');
      await press(page.getByRole('tab', { name: 'Audit log' }));
      await page.getByRole('region', { name: 'Audit log' }).getByRole('table').waitFor();
      await expectAccessibleWithUserMenu(page, theme, '/admin, Audit log');
      await press(page.getByRole('tab', { name: 'Messages' }));
      for (const region of ['Contact messages', 'Mail outbox']) {
        await page
          .getByRole('region', { name: region })
          .getByText(/^(No contact messages|No mail|\d+–\d+ of \d+)$/)
          .waitFor();
      }
      await expectAccessibleWithUserMenu(page, theme, '/admin, Messages');

      // The warning kind too: the payment provider's return after a cancelled payment.
      await page.goto(`${app.url}/dashboard/billing?payment=cancelled`);
      await expectToast(page, 'Payment cancelled');
      await page.keyboard.press('Alt+KeyT');
      await expectAccessible(page, theme, '/dashboard/billing after a cancelled payment', ['Payment cancelled']);
      expect(errors.filter((e) => !wrongPassword(e))).toEqual([]);
    }, 360_000);
  }

  it('finds none on the dashboard pages at 390 px either, with the drawer open, in both themes', async () => {
    for (const theme of THEMES) {
      const user = await seedAccount(theme === 'dark');
      const { page, errors } = await app.newPage(PHONE);
      await signInWithToasts(page, user);
      for (const section of ['Services', 'Billing', 'Settings', 'Account', 'Dashboard']) {
        await press(page.getByRole('button', { name: 'Menu', exact: true }));
        const drawer = page.getByRole('dialog', { name: 'Menu' });
        await drawer.getByRole('link', { name: section, exact: true }).waitFor();
        await expectAccessible(page, theme, `the drawer open on its way to ${section}`);
        await press(drawer.getByRole('link', { name: section, exact: true }));
        await page.getByRole('heading', { level: 1, name: section }).waitFor();
        await drawer.waitFor({ state: 'detached' });
        await expectAccessibleWithUserMenu(page, theme, `${section} at 390 px`);
      }
      expect(errors.filter((e) => !wrongPassword(e))).toEqual([]);
    }
  }, 360_000);
});

import { beforeAll, expect, it } from 'vitest';
import { createUser } from '../src/server/auth/users';
import { createTestUser, GALA_KEY, TOWN_STAR } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { expectText, expectToast } from './helpers/page-tools';
import { DESKTOP, sharedApp, signIn, type TestApp } from './helpers/app';

// The fallbacks of spec §2, §4 and §8 that only an odd answer or a failure shows.
let app: TestApp;
beforeAll(async () => {
  app = await sharedApp({ RUN_WORKER: 'false' });
});

it('warns "Theme changed but could not be saved to your profile." and keeps the theme when the save fails', async () => {
  const user = await createTestUser(app.server);
  const { page } = await app.newPage(DESKTOP);
  await signIn(page, app.url, user.email, user.password);
  await openSection(page, 'Settings');
  await page.route('**/rest/v1/profiles**', (route) =>
    route.request().method() === 'PATCH'
      ? route.fulfill({ status: 503, contentType: 'application/json', body: '{"message":"unavailable","code":"PGRST000"}' })
      : route.continue(),
  );
  await page.getByRole('switch', { name: 'Dark mode' }).click();
  await expectToast(page, 'Warning', 'Theme changed but could not be saved to your profile.');
  await expect(page.evaluate(() => document.documentElement.classList.contains('dark'))).resolves.toBe(true);
  await expect(page.evaluate(() => localStorage.getItem('nodeharbor-theme'))).resolves.toBe('dark');
});

it('shows "Never" for a user who has never signed in', async () => {
  const admin = await createTestUser(app.server, { admin: true });
  const email = `never-${Date.now()}@nodeharbor.test`;
  await createUser(app.server.deps.db, { email, password: 'correct-horse-battery' });
  const { page } = await app.newPage(DESKTOP);
  await signIn(page, app.url, admin.email, admin.password);
  await openSection(page, 'Admin Dashboard');
  const row = page.getByRole('region', { name: 'Users' }).getByRole('row').filter({ hasText: email });
  await expect.poll(() => row.innerText()).toContain('Never');
});

it('says "Invalid renewal date" when a service comes with a date it cannot read', async () => {
  const user = await createTestUser(app.server, { credits: 10 });
  const { error } = await user.client.rpc('create_service_securely', { p_name: 'odd-date', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  expect(error).toBeNull();
  const { page } = await app.newPage(DESKTOP);
  // What a proxy or an older server might send: the list as it is, with an unreadable date.
  await page.route('**/rest/v1/services?**', async (route) => {
    const res = await route.fetch();
    const rows = (await res.json()) as Record<string, unknown>[];
    await route.fulfill({ response: res, json: rows.map((r) => ({ ...r, renews_at: 'not-a-date' })) });
  });
  await signIn(page, app.url, user.email, user.password);
  await openSection(page, 'Services');
  await expectText(page, 'Invalid renewal date');
});

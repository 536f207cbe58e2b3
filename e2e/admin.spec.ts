import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser } from '../test/helpers/users';
import { openMenu, openSection } from './dashboard-helpers';
import { expectText, expectToast, serverError } from './helpers/page-tools';
import { DESKTOP, MOBILE, signIn, startApp, type TestApp } from './helpers/app';

let app: TestApp;
beforeAll(async () => {
  // An SMTP relay with credentials, but no CONTACT_TO: the Contact Settings tab shows both kinds.
  // Its own server: that setting is this test's alone, and it counts every user in the list.
  app = await startApp({ SMTP_URL: 'smtp://relay-user:relay-secret@127.0.0.1:2525' });
});
afterAll(() => app?.stop());

describe('admin area', () => {
  it('lists and searches users and adds credit with a note', async () => {
    const admin = await createTestUser(app.server, { admin: true, fullName: 'Ada Admin' });
    const customer = await createTestUser(app.server, { email: `findme-${Date.now()}@nodeharbor.test` });
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, admin.email, admin.password);
    await openSection(page, 'Admin Dashboard');
    await expect(page.evaluate(() => document.querySelector('meta[name="robots"]')?.getAttribute('content'))).resolves.toBe('noindex, nofollow');

    const users = page.getByRole('region', { name: 'Users' });
    const adminRow = users.getByRole('row').filter({ hasText: admin.email });
    await expect(adminRow.innerText()).resolves.toContain('Ada Admin');
    const customerRow = users.getByRole('row').filter({ hasText: customer.email });
    await expect(customerRow.innerText()).resolves.toContain('Not provided');

    await users.getByRole('searchbox', { name: 'Search users by email' }).fill('findme-');
    await users.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => users.getByRole('row').count()).toBe(2); // the header and one user
    await users.getByRole('searchbox', { name: 'Search users by email' }).fill('nobody-at-all');
    await users.getByRole('button', { name: 'Search' }).click();
    await expectText(page, 'No users found');
    await users.getByRole('searchbox', { name: 'Search users by email' }).fill('findme-');
    await users.getByRole('button', { name: 'Search' }).click();

    await customerRow.getByRole('button', { name: `Add credit to ${customer.email}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Add credit' });
    await dialog.getByLabel('Amount (USD)').fill('12.5');
    await dialog.getByLabel('Note').fill('Goodwill for the outage');
    await dialog.getByRole('button', { name: 'Add credit' }).click();
    await expectToast(page, 'Credit added', 'New balance: $12.50.');
    const { data } = await customer.client.from('credit_transactions').select('amount, description');
    expect(data).toEqual([{ amount: 12.5, description: 'Goodwill for the outage' }]);

    await page.getByRole('tab', { name: 'Contact Settings' }).click();
    await expect.poll(() => page.getByTestId('setting-CONTACT_TO').innerText()).toBe('Not set');
    await expect.poll(() => page.getByTestId('setting-SMTP_URL').innerText()).toBe('Set, relaying through 127.0.0.1:2525');
    expect(await page.getByRole('region', { name: 'Contact Form Settings' }).innerText()).not.toContain('relay-secret');
    await expect.poll(() => page.getByTestId('setting-MAIL_FROM').innerText()).toBe('NodeHarbor <no-reply@nodeharbor.local>');
    expect(errors).toEqual([]);
  });

  it('refuses a non-admin with a toast, and has no Admin Dashboard link for them', async () => {
    const user = await createTestUser(app.server);
    const { page } = await app.newPage(MOBILE);
    await signIn(page, app.url, user.email, user.password);
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    // Once the admin check has answered (no request left), the drawer lists what this user has.
    await page.waitForLoadState('networkidle');
    const drawer = await openMenu(page);
    await expect(drawer.getByRole('link', { name: 'Admin Dashboard' }).count()).resolves.toBe(0);
    await page.keyboard.press('Escape');
    await page.goto(`${app.url}/admin`);
    await expectToast(page, 'Access Denied', 'You do not have admin privileges.');
    await page.waitForURL(`${app.url}/`);
  });

  it('sends visitors to /login, and says so when the check or the list fails', async () => {
    const { page, context } = await app.newPage(DESKTOP);
    await page.goto(`${app.url}/admin`);
    await page.waitForURL(/\/login$/);

    const admin = await createTestUser(app.server, { admin: true });
    await signIn(page, app.url, admin.email, admin.password);
    await context.route((u) => u.pathname === '/rest/v1/rpc/get_user_stats', serverError);
    await context.route((u) => u.pathname === '/functions/v1/contact-settings', serverError);
    await page.goto(`${app.url}/admin`);
    await expectText(page, 'Failed to load users data.', 20_000);
    await page.getByRole('tab', { name: 'Contact Settings' }).click();
    await expectText(page, 'Failed to load the contact settings.', 20_000);

    await context.route((u) => u.pathname === '/rest/v1/rpc/is_user_admin', serverError);
    await page.goto(`${app.url}/admin`);
    await expectToast(page, 'Failed to check admin privileges.');
    await page.waitForURL(`${app.url}/`);
  });

  it('pages through users on the server', async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const tag = `pg${Date.now()}`;
    for (let i = 0; i < 21; i++) await createTestUser(app.server, { email: `${tag}-${i}@nodeharbor.test` });
    const { page } = await app.newPage(DESKTOP);
    await signIn(page, app.url, admin.email, admin.password);
    await page.goto(`${app.url}/admin`);
    const users = page.getByRole('region', { name: 'Users' });
    await users.getByRole('searchbox', { name: 'Search users by email' }).fill(tag);
    await users.getByRole('button', { name: 'Search' }).click();
    await users.getByText('Page 1 of 2').waitFor();
    await expect.poll(() => users.getByRole('row').count()).toBe(21); // the header and 20 users
    await users.getByRole('button', { name: 'Next' }).click();
    await users.getByText('Page 2 of 2').waitFor();
    await expect.poll(() => users.getByRole('row').count()).toBe(2);
    await expect(users.getByRole('button', { name: 'Next' }).isDisabled()).resolves.toBe(true);
    await users.getByRole('button', { name: 'Previous' }).click();
    await users.getByText('Page 1 of 2').waitFor();
  });
});

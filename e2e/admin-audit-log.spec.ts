import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../src/shared/validation';
import { createTestUser, type TestUser } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { expectText, expectToast, holdRequests, serverError } from './helpers/page-tools';
import { signIn, startApp, type TestApp, type Viewport } from './helpers/app';

const WIDE = { width: 1366, height: 900 } as const;
const PHONE = { width: 390, height: 844 } as const;

let app: TestApp;
beforeAll(async () => {
  // A server of its own (not sharedApp): the test pages through every entry of the audit log.
  app = await startApp();
});
afterAll(() => app?.stop());

/** The admin area, as an admin reaches it through the sidebar (or on a phone the drawer). */
async function openAdmin(page: Page, admin: TestUser) {
  await signIn(page, app.url, admin.email, admin.password);
  await openSection(page, 'Admin Dashboard');
}

async function openTab(page: Page, tab: 'Audit log' | 'Messages' | 'User Management') {
  await page.getByRole('tab', { name: tab }).click();
}

/** The page is no wider than the window: wide tables scroll in their own box. */
async function expectNoSidewaysScroll(page: Page, where: string) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth, where).toBeLessThanOrEqual(innerWidth);
}

/** The audit table's rows (not its header), each as its cells' texts. */
const auditRows = (audit: Locator) =>
  audit
    .getByRole('row')
    .filter({ has: audit.page().getByRole('cell') })
    .evaluateAll((rows) => rows.map((r) => [...(r as HTMLTableRowElement).cells].map((c) => c.innerText.replace(/\s+/g, ' ').trim())));

/**
 * Runs `act`, which changes the address, and waits until the filters' form is made anew from it:
 * the form is keyed by the address, and React renders the change after the address has changed.
 * Typed in before that, a value goes to the old form, with the old form's other values beside it.
 */
async function renewing(filters: Locator, act: () => Promise<void>) {
  const old = await filters.elementHandle();
  await act();
  await filters.page().waitForFunction((form) => !form?.isConnected, old);
  await old?.dispose();
}

/** Waits for what the server answers, as long as a busy machine may take. */
const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 15_000 });

const day = (offsetDays: number) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/** `n` audit entries of an operator's CLI about `user`, written straight to the log, as the CLI writes them. */
async function seedEntries(actor: string, user: TestUser, n: number) {
  await app.server.deps.db.query(
    `insert into private.admin_audit_log (actor, action, target_type, target_id, target_label, before, after)
     select $1, 'role.dev_access.grant', 'user', $2, $3, '{"granted": false}', '{"granted": true}' from generate_series(1, $4::int)`,
    [actor, user.id, user.email, n],
  );
}

describe('admin audit log, new users and mail', () => {
  it('says when its lists are loading, empty or failing', async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const { page } = await app.newPage(WIDE);
    await openAdmin(page, admin);
    const release = await holdRequests(page, '**/rest/v1/rpc/admin_*');
    await openTab(page, 'Audit log');
    await expectText(page, 'Loading the audit log...');
    await openTab(page, 'Messages');
    await expectText(page, 'Loading contact messages...');
    await expectText(page, 'Loading the outbox...');
    release();
    // A fresh server: nobody has written through the contact form yet.
    await expectText(page, 'No contact messages');
    const outbox = page.getByRole('region', { name: 'Mail outbox' });
    await outbox.getByRole('searchbox', { name: 'Search mail by recipient' }).fill('nobody-at-all');
    await outbox.getByRole('button', { name: 'Search' }).click();
    await expectText(page, 'No mail');

    await page.route(
      (u) => ['/rest/v1/rpc/admin_audit_log', '/rest/v1/rpc/admin_contact_messages', '/rest/v1/rpc/admin_mail_outbox'].includes(u.pathname),
      serverError,
    );
    await page.reload();
    await expectText(page, 'Failed to load the contact messages.', 20_000);
    await expectText(page, 'Failed to load the outbox.', 20_000);
    await openTab(page, 'Audit log');
    await expectText(page, 'Failed to load the audit log.', 20_000);
  });

  for (const [name, viewport] of [
    ['1366 px', WIDE],
    ['390 px', PHONE],
  ] as [string, Viewport][]) {
    it(`at ${name}: lists, filters and pages the audit log, keeping its filters on reload`, async () => {
      const tag = `${viewport.width}-${Date.now()}`;
      const admin = await createTestUser(app.server, { admin: true, email: `auditor-${tag}@nodeharbor.test` });
      const customer = await createTestUser(app.server, { email: `credited-${tag}@nodeharbor.test` });
      await seedEntries(`cli:seeder-${tag}`, customer, 55);
      const { page, errors } = await app.newPage(viewport);
      await openAdmin(page, admin);

      // An action through the UI: credit added from User Management.
      const users = page.getByRole('region', { name: 'Users' });
      await users.getByRole('searchbox', { name: 'Search users by email' }).fill(customer.email);
      await users.getByRole('button', { name: 'Search' }).click();
      await users.getByRole('button', { name: `Add credit to ${customer.email}` }).click();
      const dialog = page.getByRole('dialog', { name: 'Add credit' });
      await dialog.getByLabel('Amount (USD)').fill('7.25');
      await dialog.getByLabel('Note').fill('Audited goodwill');
      await dialog.getByRole('button', { name: 'Add credit' }).click();
      await expectToast(page, 'Credit added');

      await openTab(page, 'Audit log');
      await page.waitForURL(/\?tab=audit$/);
      const audit = page.getByRole('region', { name: 'Audit log' });
      const filters = audit.getByRole('search', { name: 'Filter the audit log' });
      // Newest first: the credit, by this admin, about the customer, with the balance before and after.
      await poll(async () => (await auditRows(audit))[0]?.slice(1, 5)).toEqual([
        admin.email,
        'Credit added',
        customer.email,
        'balance 0.00 → 7.25 amount 7.25 note Audited goodwill',
      ]);
      const firstRow = audit.getByRole('row').nth(1);
      await expect(firstRow.getByRole('link', { name: customer.email }).getAttribute('href')).resolves.toBe(`/admin/users/${customer.id}`);
      expect((await auditRows(audit))[0]![5]).toMatch(/127\.0\.0\.1|::1/);
      // The user agent is cut short, and whole on focus.
      const userAgent = await page.evaluate(() => navigator.userAgent);
      const cell = firstRow.getByTitle(userAgent);
      const whole = cell.getByText(userAgent, { exact: true });
      await expect(cell.getByText(`${userAgent.slice(0, 31)}…`).isVisible()).resolves.toBe(true);
      await expect(whole.evaluate((el) => el.getBoundingClientRect().width)).resolves.toBeLessThanOrEqual(1);
      await cell.focus();
      await expect(cell.getByText(`${userAgent.slice(0, 31)}…`).isVisible()).resolves.toBe(false);
      await expect(whole.evaluate((el) => el.getBoundingClientRect().width)).resolves.toBeGreaterThanOrEqual(256);
      await expectNoSidewaysScroll(page, 'the audit log');

      // By action.
      await filters.getByLabel('Action', { exact: true }).selectOption({ label: 'Credit added' });
      await filters.getByRole('button', { name: 'Filter', exact: true }).click();
      await page.waitForURL(/action=credit\.add/);
      await poll(async () => new Set((await auditRows(audit)).map((r) => r[2]))).toEqual(new Set(['Credit added']));

      // By actor: the seeder's 55 entries, in pages of 50.
      await filters.getByLabel('Action', { exact: true }).selectOption({ label: 'All actions' });
      await filters.getByLabel('Actor', { exact: true }).fill(`cli:seeder-${tag}`);
      await filters.getByRole('button', { name: 'Filter', exact: true }).click();
      await audit.getByText('1–50 of 55').waitFor();
      await poll(async () => (await auditRows(audit)).length).toBe(50);
      expect(new Set((await auditRows(audit)).map((r) => `${r[1]} | ${r[2]} | ${r[4]}`))).toEqual(
        new Set([`cli:seeder-${tag} | Dev access granted | granted false → true`]),
      );
      await audit.getByRole('button', { name: 'Next' }).click();
      await audit.getByText('51–55 of 55').waitFor();
      await page.waitForURL(/page=2/);
      await poll(async () => (await auditRows(audit)).length).toBe(5);

      // A reload keeps the tab, the filter and the page.
      await page.reload();
      await audit.getByText('51–55 of 55').waitFor();
      await expect(filters.getByLabel('Actor', { exact: true }).inputValue()).resolves.toBe(`cli:seeder-${tag}`);
      await audit.getByRole('button', { name: 'Previous' }).click();
      await audit.getByText('1–50 of 55').waitFor();

      // By date, whole days in the admin's time zone: tomorrow has nothing yet.
      await filters.getByLabel('From', { exact: true }).fill(day(-1));
      await renewing(filters, () => filters.getByRole('button', { name: 'Filter', exact: true }).click());
      await audit.getByText('1–50 of 55').waitFor();
      await filters.getByLabel('From', { exact: true }).fill(day(1));
      await renewing(filters, () => filters.getByRole('button', { name: 'Filter', exact: true }).click());
      await expectText(page, 'No audit entries');
      await filters.getByLabel('From', { exact: true }).fill('');
      await filters.getByLabel('To', { exact: true }).fill(day(-1));
      await renewing(filters, () => filters.getByRole('button', { name: 'Filter', exact: true }).click());
      await expectText(page, 'No audit entries');

      // By the admin as actor, and by target; Clear filters shows everything again.
      await renewing(filters, () => filters.getByRole('button', { name: 'Clear filters' }).click());
      await page.waitForURL(/\?tab=audit$/);
      await filters.getByLabel('Actor', { exact: true }).fill(admin.email);
      await filters.getByLabel('Target', { exact: true }).fill(customer.email);
      await filters.getByRole('button', { name: 'Filter', exact: true }).click();
      await audit.getByText('1–1 of 1').waitFor();
      expect((await auditRows(audit)).map((r) => r[2])).toEqual(['Credit added']);
      await filters.getByRole('button', { name: 'Clear filters' }).click();
      await page.waitForURL(/\?tab=audit$/);
      await expect.poll(() => filters.getByLabel('Actor', { exact: true }).inputValue()).toBe('');
      await expectNoSidewaysScroll(page, 'the audit log, filtered');
      expect(errors).toEqual([]);
    });

    it(`at ${name}: creates a user in the dialog, then finds them in the list and in the audit log`, async () => {
      const tag = `${viewport.width}-${Date.now()}`;
      const admin = await createTestUser(app.server, { admin: true });
      const taken = await createTestUser(app.server);
      const { page, errors } = await app.newPage(viewport);
      await openAdmin(page, admin);
      await page.getByRole('button', { name: 'Create user' }).click();
      const dialog = page.getByRole('dialog', { name: 'Create user' });
      await expectNoSidewaysScroll(page, 'the Create user dialog');

      // Each field's rule, once Create is pressed.
      await dialog.getByLabel('Initial credit (USD, optional)').fill('0');
      await dialog.getByRole('button', { name: 'Create user' }).click();
      for (const m of [messages.email, messages.fullNameRequired, messages.resetPasswordShort, messages.adminCreditAmount]) await dialog.getByText(m).waitFor();

      // The server's refusals: a taken address, a common password.
      await dialog.getByLabel('Email').fill(taken.email);
      await dialog.getByLabel('Full name').fill('Grace Hopper');
      await dialog.getByLabel('Password').fill('cobol-compiler-1959');
      await dialog.getByLabel('Initial credit (USD, optional)').fill('15');
      await dialog.getByRole('button', { name: 'Create user' }).click();
      await poll(() => dialog.getByRole('alert').innerText()).toBe(messages.userExists);
      const email = `grace-${tag}@nodeharbor.test`;
      await dialog.getByLabel('Email').fill(email);
      await dialog.getByLabel('Password').fill('password1');
      await dialog.getByRole('button', { name: 'Create user' }).click();
      await poll(() => dialog.getByRole('alert').innerText()).toBe(messages.passwordCommon);

      await dialog.getByLabel('Password').fill('cobol-compiler-1959');
      await dialog.getByLabel('Make this user an admin').check();
      await dialog.getByRole('button', { name: 'Create user' }).click();
      await expectToast(page, 'User created', `${email} can now sign in.`);
      await dialog.waitFor({ state: 'detached' });

      const users = page.getByRole('region', { name: 'Users' });
      await users.getByRole('searchbox', { name: 'Search users by email' }).fill(email);
      await users.getByRole('button', { name: 'Search' }).click();
      await poll(async () => (await users.getByRole('row').allInnerTexts()).slice(1).map((t) => t.split('\t').slice(0, 2))).toEqual([[email, 'Grace Hopper']]);

      await openTab(page, 'Audit log');
      const audit = page.getByRole('region', { name: 'Audit log' });
      const filters = audit.getByRole('search', { name: 'Filter the audit log' });
      await filters.getByLabel('Target', { exact: true }).fill(email);
      await filters.getByRole('button', { name: 'Filter', exact: true }).click();
      await audit.getByText('1–3 of 3').waitFor();
      expect((await auditRows(audit)).map((r) => r.slice(1, 5))).toEqual([
        [admin.email, 'Credit added', email, 'balance 0.00 → 15.00 amount 15.00 note Initial credit'],
        [admin.email, 'Admin role granted', email, 'granted false → true'],
        [admin.email, 'User created', email, 'admin true full_name Grace Hopper'],
      ]);

      // The new admin signs in with the password given.
      const other = await app.newPage(viewport);
      await openAdmin(other.page, { ...admin, email, password: 'cobol-compiler-1959' });
      // The refusals above, as the browser logs them.
      expect(errors.filter((e) => !/status of (409|400)/.test(e))).toEqual([]);
    });

    it(`at ${name}: shows contact messages, and a password-reset mail's link in the outbox, its reading audited`, async () => {
      const tag = `${viewport.width}-${Date.now()}`;
      const admin = await createTestUser(app.server, { admin: true });
      const customer = await createTestUser(app.server, { email: `forgetful-${tag}@nodeharbor.test` });
      const sent = await app.server.client().functions.invoke('contact-form', {
        body: {
          name: `Visitor ${tag}`,
          email: `visitor-${tag}@example.com`,
          topic: 'support',
          message: 'My node has been offline since this morning.',
          honeypot: '',
        },
      });
      expect(sent.error).toBeNull();
      expect((await app.server.client().auth.resetPasswordForEmail(customer.email)).error).toBeNull();

      const { page, errors } = await app.newPage(viewport);
      await openAdmin(page, admin);
      await openTab(page, 'Messages');
      await page.waitForURL(/\?tab=messages$/);
      const contact = page.getByRole('region', { name: 'Contact messages' });
      const message = contact.getByRole('row').filter({ hasText: `Visitor ${tag}` });
      await expect(message.innerText()).resolves.toMatch(
        new RegExp(`visitor-${tag}@example\\.com\\s+Support\\s+My node has been offline since this morning\\.`),
      );
      await expectNoSidewaysScroll(page, 'the messages');

      const outbox = page.getByRole('region', { name: 'Mail outbox' });
      // The worker mails the link a moment after the request: search until it is there.
      await poll(async () => {
        await outbox.getByRole('searchbox', { name: 'Search mail by recipient' }).fill(customer.email);
        await outbox.getByRole('button', { name: 'Search' }).click();
        return outbox.getByRole('row').filter({ hasText: 'Reset your NodeHarbor password' }).count();
      }).toBe(1);
      const row = outbox.getByRole('row').filter({ hasText: 'Reset your NodeHarbor password' });
      await expect(row.innerText()).resolves.toContain('Kept (no SMTP)');
      await row.getByRole('button', { name: `Open the mail "Reset your NodeHarbor password" to ${customer.email}` }).click();
      const mail = page.getByRole('dialog', { name: 'Reset your NodeHarbor password' });
      const links = mail.getByRole('region', { name: 'Links in this mail' });
      const link = await links.locator('code').innerText();
      expect(link).toMatch(new RegExp(`^${app.url}/auth/v1/verify\\?token=\\S+&type=recovery`));
      await links.getByRole('button', { name: 'Copy' }).click();
      await expectToast(page, 'Link copied');
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(link);
      await expectNoSidewaysScroll(page, 'the mail');
      if (viewport === WIDE) {
        // A browser that refuses the clipboard: the link stays on screen to select by hand.
        await page.evaluate(() => (navigator.clipboard.writeText = () => Promise.reject(new Error('denied'))));
        await links.getByRole('button', { name: 'Copy' }).click();
        await expectToast(page, 'Could not copy the link');
      }
      await page.keyboard.press('Escape');

      // The link works: it signs the customer in to choose a new password.
      const reset = await app.newPage(viewport);
      await reset.page.goto(link);
      await reset.page.waitForURL(/\/reset-password-confirm/);

      await openTab(page, 'Audit log');
      const audit = page.getByRole('region', { name: 'Audit log' });
      const filters = audit.getByRole('search', { name: 'Filter the audit log' });
      await filters.getByLabel('Action', { exact: true }).selectOption({ label: 'Mail read' });
      await filters.getByLabel('Actor', { exact: true }).fill(admin.email);
      await filters.getByRole('button', { name: 'Filter', exact: true }).click();
      await audit.getByText('1–1 of 1').waitFor();
      expect((await auditRows(audit))[0]!.slice(1, 5)).toEqual([admin.email, 'Mail read', `${customer.email} mail`, 'subject Reset your NodeHarbor password']);
      expect(errors).toEqual([]);
    });
  }

  it('says why a user could not be created, and that it is on its way', async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const { page } = await app.newPage(WIDE);
    await openAdmin(page, admin);
    await page.getByRole('button', { name: 'Create user' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create user' });
    await dialog.getByLabel('Email').fill(`held-${Date.now()}@nodeharbor.test`);
    await dialog.getByLabel('Full name').fill('Held Back');
    await dialog.getByLabel('Password').fill('cobol-compiler-1959');
    const release = await holdRequests(page, '**/functions/v1/admin-create-user');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await dialog.getByRole('button', { name: 'Creating...' }).waitFor();
    await page.route('**/functions/v1/admin-create-user', serverError);
    release();
    await expectToast(page, 'User created');
    await page.getByRole('button', { name: 'Create user' }).click();
    await dialog.getByLabel('Email').fill(`failed-${Date.now()}@nodeharbor.test`);
    await dialog.getByLabel('Full name').fill('Never Made');
    await dialog.getByLabel('Password').fill('cobol-compiler-1959');
    await dialog.getByRole('button', { name: 'Create user' }).click();
    await poll(() => dialog.getByRole('alert').innerText()).toBe('The user could not be created. Please try again.');
  });
});

import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../src/shared/validation';
import { createService, createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, TOWN_STAR_QUARTERLY, type TestUser } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';
import { expectText, expectToast, holdRequests, serverError, stir } from './helpers/page-tools';

// The admin's page of one user (issue 19): reached from the user list and the fleet, what it
// shows, what it does (each action audited), and its refusals, on a laptop and on a phone.

const WIDE: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

const sql = async <T>(text: string, params: unknown[] = []) => (await app.server.deps.db.query<T>(text, params)).rows;

/** A service whose installation failed, written as the worker leaves one (the worker would install one made through the API). */
async function failedService(user: TestUser, name: string, reason: string): Promise<string> {
  const [row] = await sql<{ id: string }>(
    `insert into private.services (user_id, name, api_key_encrypted, product_id, state, provisioning_error)
     values ($1, $2, private.encrypt_api_key($3), $4, 'failed', $5) returning id`,
    [user.id, name, GALA_KEY, TOWN_STAR, reason],
  );
  return row!.id;
}

/** The page is no wider than the window: nothing scrolls sideways. */
async function expectNoSidewaysScroll(page: Page, where: string) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth, where).toBeLessThanOrEqual(innerWidth);
}

/** The user's page, opened from the Users list as an admin does. */
async function openFromList(page: Page, admin: TestUser, customer: TestUser) {
  await signIn(page, app.url, admin.email, admin.password);
  await openSection(page, 'Admin Dashboard');
  const users = page.getByRole('region', { name: 'Users' });
  await users.getByRole('searchbox', { name: 'Search users by email' }).fill(customer.email);
  await users.getByRole('button', { name: 'Search' }).click();
  await users.getByRole('link', { name: customer.email }).click();
  await page.waitForURL(`${app.url}/admin/users/${customer.id}`);
  await page.getByRole('region', { name: customer.email }).waitFor();
}

const term = (page: Page, name: string) =>
  page
    .getByRole('region', { name: /@/ })
    .locator('div', { has: page.locator('dt', { hasText: new RegExp(`^${name}$`) }) })
    .locator('dd');
/** What the admin's page recorded in the audit log about `target`, oldest first. */
const audited = async (admin: TestUser, target: string) =>
  (await sql<{ action: string }>(`select action from private.admin_audit_log where target_id = $1 and actor_id = $2 order by id`, [target, admin.id])).map(
    (r) => r.action,
  );

describe.each([
  ['1366 px', WIDE],
  ['390 px', PHONE],
])('the user page at %s', (_, viewport) => {
  it('shows balance, services, ledger and events; adds credit, grants dev access, retries, sends a reset link, suspends and reactivates', async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const customer = await createTestUser(app.server, { credits: 30, fullName: 'Grace Hopper' });
    await createService(customer, 'node-1');
    const broken = await failedService(customer, 'broken', 'No such image: x');
    const { page, errors } = await app.newPage(viewport);

    await openFromList(page, admin, customer);
    await expect.poll(() => page.title()).toBe(`${customer.email} | NodeHarbor`);
    await expect.poll(() => term(page, 'Full name').innerText()).toBe('Grace Hopper');
    await expect.poll(() => term(page, 'Balance').innerText()).toBe('$20.00');
    await expect(term(page, 'Suspended').innerText()).resolves.toBe('No');
    await expect(term(page, 'Second factor').innerText()).resolves.toBe('No');
    await expect(term(page, 'Dev access').innerText()).resolves.toBe('No');

    const services = page.getByRole('region', { name: 'Services' });
    const serviceRow = (name: string) => services.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) });
    await expect.poll(() => serviceRow('broken').innerText()).toContain('Installation failed');
    await expect(serviceRow('broken').innerText()).resolves.toContain('No such image: x');
    // The worker installs node-1 (the page reads it again meanwhile): Active, its node as the monitor last saw it.
    await expect.poll(async () => (await serviceRow('node-1').innerText()).replace(/\s+/g, ' '), { timeout: 20_000 }).toMatch(/Active (Online|Unknown)/);

    const ledger = page.getByRole('region', { name: 'Ledger' });
    await expect.poll(() => ledger.getByRole('row').count()).toBe(3); // the header, the charge and the credit
    await expect(ledger.innerText()).resolves.toMatch(/Service charge[\s\S]*node-1[\s\S]*-\$10\.00[\s\S]*Admin credit[\s\S]*Test credit[\s\S]*\$30\.00/);
    await expect(page.getByRole('region', { name: 'Credit purchases' }).innerText()).resolves.toContain('No purchases');
    const events = page.getByRole('region', { name: 'Service events' });
    await expect.poll(() => events.innerText(), { timeout: 20_000 }).toMatch(/node-1\s+Node installed[\s\S]*node-1\s+Installation started/);

    // Add credit, with the dialog of the user list.
    await page.getByRole('button', { name: `Add credit to ${customer.email}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Add credit' });
    await dialog.getByLabel('Amount (USD)').fill('5');
    await dialog.getByLabel('Note').fill('Sorry for the outage');
    await dialog.getByRole('button', { name: 'Add credit' }).click();
    await expectToast(page, 'Credit added', 'New balance: $25.00.');
    await expect.poll(() => term(page, 'Balance').innerText()).toBe('$25.00');
    await expect.poll(() => ledger.innerText()).toContain('Sorry for the outage');

    // Dev access, granted then revoked.
    await page.getByRole('button', { name: 'Grant dev access' }).click();
    await expectToast(page, 'Dev access granted', `${customer.email} can now open development hosts.`);
    await expect.poll(() => term(page, 'Dev access').innerText()).toBe('Yes');
    await page.getByRole('button', { name: 'Revoke dev access' }).click();
    await expectToast(page, 'Dev access revoked', `${customer.email} can no longer open development hosts.`);
    await expect.poll(() => term(page, 'Dev access').innerText()).toBe('No');

    // Retry of the failed install: the owner's button; the worker installs it.
    await serviceRow('broken').getByRole('button', { name: 'Retry broken' }).click();
    await expectToast(page, 'Installation restarted');
    await expect.poll(() => events.innerText()).toContain('Retry requested by an administrator');
    await expect.poll(async () => (await serviceRow('broken').innerText()).replace(/\s+/g, ' '), { timeout: 20_000 }).toContain('Active');
    expect((await sql<{ state: string }>(`select state from private.services where id = $1`, [broken]))[0]!.state).toBe('active');

    // The reset link: the recovery mail, in the outbox once the worker has run the job.
    await page.getByRole('button', { name: 'Send password reset link' }).click();
    await expectToast(page, 'Reset link sent', `A password reset link is on its way to ${customer.email}.`);
    const resetMails = () =>
      sql<{ text_body: string }>(`select text_body from nodeharbor.outbox where to_address = $1 and subject = 'Reset your NodeHarbor password'`, [
        customer.email,
      ]);
    await expect.poll(async () => (await resetMails()).map((m) => /\/auth\/v1\/verify\?token=/.test(m.text_body)), { timeout: 20_000 }).toEqual([true]);

    // Suspended: signed out, refused at sign-in with the message; reactivated: in again.
    await page.getByRole('button', { name: 'Suspend', exact: true }).click();
    const suspend = page.getByRole('dialog', { name: 'Suspend this user?' });
    await suspend.getByText('Leave empty to suspend until reactivated.').waitFor();
    await suspend.getByRole('button', { name: 'Suspend user' }).click();
    await expectToast(page, 'User suspended', `${customer.email} is signed out and cannot sign in.`);
    await expect.poll(() => term(page, 'Suspended').innerText()).toBe('Until reactivated');
    await expect(page.getByRole('button', { name: 'Send password reset link' }).count()).resolves.toBe(0);
    expect((await customer.client.from('profiles').select('id')).error).not.toBeNull();

    const other = await app.newPage(viewport);
    await other.page.goto(`${app.url}/login`);
    await stir(other.page);
    await other.page.getByLabel('Email').fill(customer.email);
    await other.page.getByLabel('Password').fill(customer.password);
    await other.page.getByRole('button', { name: 'Sign In' }).click();
    await expectToast(other.page, 'Authentication Error', messages.accountSuspended);

    await page.getByRole('button', { name: 'Reactivate' }).click();
    await expectToast(page, 'User reactivated', `${customer.email} can sign in again.`);
    await expect.poll(() => term(page, 'Suspended').innerText()).toBe('No');
    await signIn(other.page, app.url, customer.email, customer.password);

    await expectNoSidewaysScroll(page, 'the user page');
    for (const table of ['Services table', 'Ledger table']) {
      await expect(
        page
          .getByRole('group', { name: `${table}, scrolls sideways`, exact: true })
          .getByRole('table')
          .count(),
      ).resolves.toBe(1);
    }
    expect(await audited(admin, customer.id)).toEqual([
      'credit.add',
      'role.dev_access.grant',
      'role.dev_access.revoke',
      'user.password_reset_link',
      'user.suspend',
      'user.reactivate',
    ]);
    expect(await audited(admin, broken)).toEqual(['service.retry_install']);
    expect(errors).toEqual([]);
  });

  it("says 'User not found' for an unknown id, with a way back", async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const { page } = await app.newPage(viewport);
    await signIn(page, app.url, admin.email, admin.password);
    for (const id of ['00000000-0000-4000-8000-00000000dead', 'not-a-user']) {
      await page.goto(`${app.url}/admin/users/${id}`);
      await page.getByRole('heading', { name: 'User not found' }).waitFor();
      await expectText(page, 'There is no such user. The account may have been deleted.');
      await expect.poll(() => page.title()).toBe('User not found | NodeHarbor');
      await expectNoSidewaysScroll(page, 'User not found');
    }
    await page.getByRole('link', { name: 'Back to Admin Dashboard' }).click();
    await page.waitForURL(`${app.url}/admin`);
  });
});

describe('the user page', () => {
  it("is reached from the fleet's owner column, and deletes an account after its e-mail is typed", async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const leaving = await createTestUser(app.server, { credits: 10 });
    await failedService(leaving, 'leftover', 'engine down');
    const { page, errors } = await app.newPage(WIDE);
    await signIn(page, app.url, admin.email, admin.password);
    await openSection(page, 'Admin Dashboard');
    await page.getByRole('tab', { name: 'Fleet' }).click();
    const fleet = page.getByRole('region', { name: 'Fleet' });
    await fleet.getByRole('row').filter({ hasText: 'leftover' }).getByRole('link', { name: leaving.email }).click();
    await page.waitForURL(`${app.url}/admin/users/${leaving.id}`);

    await page.getByRole('button', { name: 'Delete account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this account?' });
    await expect(dialog.innerText()).resolves.toContain('The remaining credit of $10.00 can no longer be used.');
    const confirm = dialog.getByRole('button', { name: 'Delete this account' });
    await dialog.getByLabel(`Type ${leaving.email} to confirm`).fill('someone@else.test');
    await expect(confirm.isDisabled()).resolves.toBe(true);
    await dialog.getByLabel(`Type ${leaving.email} to confirm`).fill(leaving.email);
    await confirm.click();
    await expectToast(page, 'User deleted', `The account of ${leaving.email} has been deleted. Its ledger is kept.`);
    await page.waitForURL(`${app.url}/admin`);
    expect(await sql(`select deleted_at is not null as gone from auth.users where id = $1`, [leaving.id])).toEqual([{ gone: true }]);
    expect(await audited(admin, leaving.id)).toEqual(['user.delete']);

    await page.goto(`${app.url}/admin/users/${leaving.id}`);
    await page.getByRole('heading', { name: 'User not found' }).waitFor();
    expect(errors).toEqual([]);
  });

  it("shows each service's margin a month: a loss in the destructive colour, and why a service has none", async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const customer = await createTestUser(app.server);
    // Written as their lives would leave them: a plan paid every month and one every quarter, a
    // suspended one, a Master Node (no cost recorded: it runs on Swarm) and a failed install.
    const service = (name: string, product: string, state: 'active' | 'suspended') =>
      sql(
        `insert into private.services (user_id, name, api_key_encrypted, product_id, state, renews_at, terminates_at)
         values ($1, $2, private.encrypt_api_key($3), $4, $5::public.service_state, now() + interval '20 days',
                 case when $5::public.service_state = 'suspended' then now() + interval '14 days' end)`,
        [customer.id, name, product === MASTER_NODE ? LICENCE_KEY : GALA_KEY, product, state],
      );
    await service('monthly', TOWN_STAR, 'active');
    await service('quarterly', TOWN_STAR_QUARTERLY, 'active');
    await service('lapsed', TOWN_STAR, 'suspended');
    await service('master', MASTER_NODE, 'active');
    await failedService(customer, 'broken', 'No cx23 server is available');
    const { page, errors } = await app.newPage(WIDE);
    await signIn(page, app.url, admin.email, admin.password);
    await page.goto(`${app.url}/admin/users/${customer.id}`);

    const services = page.getByRole('region', { name: 'Services' });
    await services.getByRole('columnheader', { name: 'Margin / month' }).waitFor();
    const margin = (name: string) =>
      services
        .getByRole('row')
        .filter({ has: page.getByRole('cell', { name, exact: true }) })
        .getByRole('cell')
        .nth(7);
    await expect.poll(() => margin('monthly').innerText()).toBe('$5.19');
    // $30 a quarter is $10 a month.
    await expect(margin('quarterly').innerText()).resolves.toBe('$5.19');
    // Hetzner bills a powered-off server in full.
    await expect(margin('lapsed').innerText()).resolves.toBe('-$4.81');
    await expect(margin('lapsed').getByText('-$4.81').getAttribute('class')).resolves.toContain('text-destructive');
    await expect(margin('monthly').getByText('$5.19').getAttribute('class')).resolves.toBeNull();
    await expect(margin('master').getByTitle('No cost recorded for this product').innerText()).resolves.toBe('—');
    await expect(margin('broken').getByTitle('No node, so no cost').innerText()).resolves.toBe('—');
    expect(errors).toEqual([]);
  });

  it("leaves out suspend, revoke and delete on an admin's own page, and says why", async () => {
    const admin = await createTestUser(app.server, { admin: true });
    await sql(`insert into public.dev_access_users (user_id) values ($1)`, [admin.id]);
    const { page } = await app.newPage(WIDE);
    await signIn(page, app.url, admin.email, admin.password);
    await page.goto(`${app.url}/admin/users/${admin.id}`);
    await expectText(page, 'This is your own account: you cannot suspend it, revoke its dev access or delete it here.');
    await expect(term(page, 'Dev access').innerText()).resolves.toBe('Yes (admin)');
    for (const name of ['Suspend', 'Revoke dev access', 'Delete account']) {
      await expect(page.getByRole('button', { name, exact: true }).count(), name).resolves.toBe(0);
    }
    await expect(page.getByRole('region', { name: 'Services' }).innerText()).resolves.toContain('No services');
    await expect(page.getByRole('region', { name: 'Ledger' }).innerText()).resolves.toContain('No transactions');
    await expect(page.getByRole('region', { name: 'Service events' }).innerText()).resolves.toContain('No events');
  });

  it('shows its loading and its failures: the page, a list, an action', async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const customer = await createTestUser(app.server);
    const { page } = await app.newPage(WIDE);
    await signIn(page, app.url, admin.email, admin.password);
    const release = await holdRequests(page, '**/rest/v1/rpc/admin_user');
    await page.goto(`${app.url}/admin/users/${customer.id}`);
    await expectText(page, 'Loading user...');
    release();
    await page.getByRole('region', { name: customer.email }).waitFor();

    // An action the server refuses: its words in the toast.
    await page.route('**/rest/v1/rpc/admin_send_password_reset', serverError);
    await page.getByRole('button', { name: 'Send password reset link' }).click();
    await expectToast(page, 'Action failed', 'boom');

    await page.route('**/rest/v1/rpc/admin_user_events', serverError);
    await page.reload();
    await page.getByRole('region', { name: 'Service events' }).getByText('Failed to load the user.').waitFor({ timeout: 20_000 });
    await page.route('**/rest/v1/rpc/admin_user', serverError);
    await page.reload();
    await expectText(page, 'Failed to load the user.', 20_000);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { createJobDeps } from '../src/server/jobs/app-worker';
import type { JobDeps } from '../src/server/jobs/task';
import { installNode } from '../src/server/provisioning/install-node';
import { forceServiceState } from '../test/helpers/service-state';
import { createTestUser, GALA_KEY, TOWN_STAR, TOWN_STAR_QUARTERLY, type TestUser } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { expectToast, serverError } from './helpers/page-tools';
import { sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';

// Issue 17's texts and facts: the payment toast with its amount, Next Payment, and the extend
// dialog's word on the new plan's renewals.

const DESKTOP: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };
const VIEWPORTS = [
  ['1366 px', DESKTOP],
  ['390 px', PHONE],
] as const;

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  // The test installs nodes itself, through the worker's own step, so that each service is active when it says.
  app = await sharedApp({ RUN_WORKER: 'false' });
  deps = await createJobDeps(app.server.deps);
});

async function activeService(user: TestUser, name: string, renewsAt: string): Promise<string> {
  const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await installNode(deps, id);
  await app.server.deps.db.query('update private.services set renews_at = $2 where id = $1', [id, renewsAt]);
  return id;
}

describe('the payment toast', () => {
  it.each(VIEWPORTS)('says "Payment Processed" with the amount credited after the provider at %s', async (_label, viewport) => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Billing');
    const card = page.getByRole('region', { name: 'Add Funds' });
    await card.getByRole('button', { name: '$25.00', exact: true }).click();
    await card.getByRole('button', { name: 'Pay $25.00' }).click();
    // The built-in test provider's approval page, as PayPal's would be.
    await page.getByRole('button', { name: 'Approve test payment' }).click();
    await expectToast(page, 'Payment Processed', '$25.00 was added to your balance.');
    await expect.poll(() => page.getByLabel('Current balance').innerText(), { timeout: 10_000 }).toBe('$25.00');
    // Said once: the address no longer asks for it.
    await page.waitForURL(/\/dashboard\/billing$/);
    expect(errors).toEqual([]);
  });

  it('says a pending payment is pending, and "Payment Processed" without an amount it cannot read', async () => {
    const user = await createTestUser(app.server);
    const stranger = await createTestUser(app.server);
    const { rows } = await app.server.deps.db.query<{ id: string }>(
      `insert into public.credit_purchases (user_id, amount, status, provider) values ($1, 40, 'completed', 'test') returning id`,
      [stranger.id],
    );
    const { page } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await page.goto(`${app.url}/dashboard/billing?payment=pending`);
    await expectToast(page, 'Payment pending', 'The provider has not approved it yet. It reaches your balance once approved, which may take up to 48 hours.');
    // Someone else's purchase is not read: no amount is claimed.
    await page.goto(`${app.url}/dashboard/billing?payment=success&purchase=${rows[0]!.id}`);
    await expectToast(page, 'Payment Processed', 'Your balance has been updated.');
    await expect(page.getByText('$40.00').count()).resolves.toBe(0);
  });
});

describe('Next Payment', () => {
  it.each(VIEWPORTS)('shows the next renewal\'s amount and date, follows changes, and says "No scheduled payments" at %s', async (_label, viewport) => {
    // Two services at $10, and a quarter at $30.
    const user = await createTestUser(app.server, { credits: 50 });
    const a = await activeService(user, 'renews-first', '2027-01-15T12:00:00Z');
    const b = await activeService(user, 'renews-later', '2027-02-01T12:00:00Z');
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);
    const card = page.getByRole('group', { name: 'Next Payment' });
    // After each reload the card waits for the services and then asks for the next payment.
    const cardText = () => expect.poll(() => card.innerText(), { timeout: 10_000 });
    await cardText().toMatch(/\$10\.00\s+renews-first renews on Jan 15, 2027/);

    // The first one expired: the other is next.
    await forceServiceState(app.server.deps.db, 'expired', 'id = $1', a);
    await page.reload();
    await cardText().toMatch(/\$10\.00\s+renews-later renews on Feb 1, 2027/);

    // Extended onto the quarterly plan: its renewal moves 3 months on, at the quarterly price.
    const { error } = await user.client.rpc('extend_service_expiration', { p_service_id: b, p_product_id: TOWN_STAR_QUARTERLY, p_months: 3 });
    expect(error).toBeNull();
    await page.reload();
    await cardText().toMatch(/\$30\.00\s+renews-later renews on May 1, 2027/);

    // Deleted: nothing renews any more.
    await forceServiceState(app.server.deps.db, 'deleted', 'id = $1', b);
    await page.reload();
    await cardText().toMatch(/-\s+No scheduled payments/);
    expect(errors).toEqual([]);
  });

  it('says so when the next payment cannot be loaded', async () => {
    const user = await createTestUser(app.server);
    const { page, context } = await app.newPage(DESKTOP);
    await context.route((u) => u.pathname === '/rest/v1/rpc/get_next_payment', serverError);
    await signIn(page, app.url, user.email, user.password);
    await expect.poll(() => page.getByRole('group', { name: 'Next Payment' }).innerText(), { timeout: 20_000 }).toMatch(/Failed to load the next payment/);
  });
});

describe('extending onto another plan', () => {
  it.each(VIEWPORTS)("says that renewals then follow the new plan's price and period at %s", async (_label, viewport) => {
    const user = await createTestUser(app.server, { credits: 40 });
    await activeService(user, 'to-quarter', '2027-01-15T12:00:00Z');
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Services');
    await page.getByRole('button', { name: 'Extend to-quarter' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Extend to-quarter' });
    const product = dialog.getByLabel('Product');
    await product.waitFor();
    const notice = dialog.getByRole('note');
    // The plan it is on: nothing changes for its renewals.
    await expect(notice.count()).resolves.toBe(0);
    await product.selectOption({ label: 'Town Star (quarterly) ($30.00)' });
    await expect
      .poll(() => notice.innerText())
      .toBe('Your service moves to Town Star (quarterly): after this extension, renewals will be charged at $30.00 every 3 months.');
    await product.selectOption({ label: 'Town Star ($10.00)' });
    await expect.poll(() => notice.count()).toBe(0);
    await product.selectOption({ label: 'Town Star (quarterly) ($30.00)' });
    await dialog.getByRole('button', { name: 'Extend Service' }).click();
    await expectToast(page, 'Service Extended', 'Service extended for 3 month(s)');
    expect(errors).toEqual([]);
  });
});

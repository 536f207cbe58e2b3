import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { addCredits } from '../src/server/domain/credits';
import { createJobDeps } from '../src/server/jobs/app-worker';
import type { JobDeps } from '../src/server/jobs/task';
import { failInstallation, installNode } from '../src/server/provisioning/install-node';
import { failedInstallTexts } from '../src/shared/failed-install';
import { expectLedgerBalanced } from '../test/helpers/ledger';
import { paidWithTestProvider } from '../test/payments/helpers';
import { createService, createTestUser, type TestUser } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { seriousViolations } from './helpers/axe';
import { expectToast } from './helpers/page-tools';
import { sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';

// Issue 36, item 5: money that explains itself. A failed installation's charge back on the card and
// in the ledger, a Retry that asks before it charges (and says when the credit is short), a
// suspended service's "Add funds" with the amount that renews it, an admin's refund that warns
// before it takes the balance below zero, and the customer's banner that says why; at a laptop's
// and a phone's width, and in both themes with axe.

const DESKTOP: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };
const VIEWPORTS = [
  ['1366 px', DESKTOP],
  ['390 px', PHONE],
] as const;
const THEMES = ['light', 'dark'] as const;

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  // The test fails, installs and renews nodes itself, through the worker's own code, when it says.
  app = await sharedApp({ RUN_WORKER: 'false' });
  deps = await createJobDeps(app.server.deps);
});

const sql = <T>(text: string, params: unknown[] = []) => app.server.deps.db.query<T>(text, params).then((r) => r.rows);
const balanceOf = async (u: TestUser) =>
  Number((await sql<{ balance: string }>('select balance from public.user_credits where user_id = $1', [u.id]))[0]!.balance);
const noSidewaysScroll = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

/** A Town Star order whose installation failed: the worker's own failure path, which gives the $10 back. */
async function failedOrder(user: TestUser, name: string): Promise<string> {
  const id = await createService(user, name);
  await failInstallation(deps, id, 'No such image: nodeharbor/townstar-node:1');
  return id;
}

/** A running service whose renewal found too little credit: suspended, its node stopped. */
async function suspendedService(user: TestUser, name: string): Promise<string> {
  const id = await createService(user, name);
  await installNode(deps, id);
  await sql(`update private.services set renews_at = now() - interval '1 minute' where id = $1`, [id]);
  expect((await sql<{ outcome: string }>('select private.renew_service($1, 14) as outcome', [id]))[0]!.outcome).toBe('suspended');
  return id;
}

/** A completed $10 purchase of which `spent` was spent, refunded in full by an admin with `reason`: the balance goes below zero. */
async function refundedBelowZero(user: TestUser, spent: number, reason: string): Promise<void> {
  const purchaseId = await paidWithTestProvider(user, 10);
  await sql(`select private.post_transaction($1, $2, 'service_charge', 'Spent', null, $3)`, [user.id, -spent, `spent-${user.id}`]);
  const refundId = (
    await sql<{ id: string }>(`insert into public.credit_refunds (purchase_id, user_id, amount, kind, reason) values ($1, $2, 10, 'refund', $3) returning id`, [
      purchaseId,
      user.id,
      reason,
    ])
  )[0]!.id;
  await sql(`select private.book_refund($1, $2, $3, 'USD', '10.00', 'refund', '{"name": "NodeHarbor"}')`, [purchaseId, refundId, `R-${refundId}`]);
}

describe('money that explains itself', () => {
  it.each(VIEWPORTS)(
    'shows the failed-install refund on the card and in the ledger, and a Retry that asks before it charges, at %s',
    async (_label, viewport) => {
      const user = await createTestUser(app.server, { credits: 10 });
      const name = viewport === PHONE ? 'free-fail-p' : 'free-fail-d';
      const id = await failedOrder(user, name);
      // The $10 that came back was partly spent elsewhere: $4 is left, short of a retry.
      await sql(`select private.post_transaction($1, -6, 'service_charge', 'Spent elsewhere', null, $2)`, [user.id, `spent-${user.id}`]);
      const { page, errors } = await app.newPage(viewport);
      await signIn(page, app.url, user.email, user.password);
      await openSection(page, 'Services');
      const card = page.getByRole('article', { name });
      await card.getByText('Installation failed', { exact: true }).waitFor();
      await card.getByText(failedInstallTexts.refunded('$10.00'), { exact: true }).waitFor();
      // No paid period is left to count down or to show.
      expect(await card.innerText()).not.toMatch(/Renews|Paid until|Expired/);
      expect(await noSidewaysScroll(page)).toBe(true);

      // The ledger says it in its own words, and the balance has it.
      await openSection(page, 'Billing');
      const recent = page.getByRole('list', { name: 'Recent transactions' });
      await recent.getByText(failedInstallTexts.refundDescription(name), { exact: true }).waitFor();
      await page.goto(`${app.url}/dashboard/billing/transactions`);
      const row = page
        .getByRole('region', { name: 'All transactions' })
        .getByRole('row')
        .filter({ hasText: failedInstallTexts.refundDescription(name) });
      await expect.poll(() => row.innerText()).toMatch(/Refund[\s\S]*\+\$10\.00/);
      expect(await noSidewaysScroll(page)).toBe(true);

      // Retry asks first, with the price; too little credit is said in the dialog, and nothing changes.
      await openSection(page, 'Services');
      await card.getByRole('button', { name: `Retry ${name}` }).click();
      const dialog = page.getByRole('dialog', { name: failedInstallTexts.retryTitle(name) });
      await dialog.getByText(failedInstallTexts.retryDescription('$10.00')).waitFor();
      await dialog.getByText('Your balance: $4.00').waitFor();
      await dialog.getByRole('button', { name: 'Retry for $10.00' }).click();
      const refusal = dialog.getByRole('alert');
      await refusal.getByText('You need $10.00 but only have $4.00').waitFor();
      expect(await refusal.getByRole('link', { name: 'Add funds' }).getAttribute('href')).toBe('/dashboard/billing?amount=6.00');
      expect((await sql<{ state: string }>('select state::text from private.services where id = $1', [id]))[0]!.state).toBe('failed');
      expect(await balanceOf(user)).toBe(4);

      // With the credit topped up, the confirmed retry charges $10 and installs again.
      await addCredits(app.server.deps.db, user.id, 10, 'Top-up');
      await dialog.getByRole('button', { name: 'Retry for $10.00' }).click();
      await expectToast(page, 'Installation restarted', `${name} is being set up again.`);
      await dialog.waitFor({ state: 'detached' });
      await card.getByText('Installing').waitFor();
      expect(await balanceOf(user)).toBe(4);
      const charges = await sql<{ description: string; amount: string }>(
        `select description, amount::text from public.credit_transactions where service_id = $1 order by created_at, id`,
        [id],
      );
      expect(charges.map((c) => [c.description, Number(c.amount)])).toEqual([
        [`Service creation for ${name} (Town Star)`, -10],
        [failedInstallTexts.refundDescription(name), 10],
        [failedInstallTexts.retryChargeDescription(name, 'Town Star'), -10],
      ]);
      await expectLedgerBalanced(app.server.deps.db);
      // On purpose: the retry refused for too little credit (400).
      expect(errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
    },
  );

  it.each(VIEWPORTS)('offers a suspended service "Add funds" with the amount that renews it, filled in on Billing, at %s', async (_label, viewport) => {
    const user = await createTestUser(app.server, { credits: 10 });
    const name = viewport === PHONE ? 'lapsed-p' : 'lapsed-d';
    await suspendedService(user, name);
    await addCredits(app.server.deps.db, user.id, 4.5, 'A little');
    // The credit queued a resumption, which this test's worker does not run: the balance stays short.
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Services');
    const card = page.getByRole('article', { name });
    await card.getByText(/^Suspended · terminates on /).waitFor();
    await card.getByText('Renewing costs $10.00 and your balance is $4.50. Add $5.50 and it renews on its own: the same node starts again.').waitFor();
    expect(await noSidewaysScroll(page)).toBe(true);
    await card.getByRole('link', { name: `Add funds ($5.50) to renew ${name}` }).click();
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    expect(await page.getByLabel('Custom amount (USD)').inputValue()).toBe('5.50');
    await page.getByRole('button', { name: 'Pay $5.50' }).waitFor();
    expect(errors).toEqual([]);
  });

  it.each(VIEWPORTS)(
    'warns the admin before a refund takes the balance below zero, and tells the customer why on their dashboard, at %s',
    async (_label, viewport) => {
      const admin = await createTestUser(app.server, { admin: true });
      const customer = await createTestUser(app.server);
      await paidWithTestProvider(customer, 10);
      await sql(`select private.post_transaction($1, -2, 'service_charge', 'Spent', null, $2)`, [customer.id, `spent-${customer.id}`]);

      const { page, context, errors } = await app.newPage(viewport);
      await signIn(page, app.url, admin.email, admin.password);
      await page.goto(`${app.url}/admin/users/${customer.id}`);
      const purchases = page.getByRole('region', { name: 'Credit purchases' });
      await purchases.getByRole('button', { name: /^Refund the purchase of \$10\.00/ }).click();
      const dialog = page.getByRole('dialog', { name: 'Refund purchase' });
      const amount = dialog.getByLabel('Amount (USD), at most $10.00');
      await amount.fill('5');
      await dialog.getByText('After the refund, the balance will be $3.00.').waitFor();
      await amount.fill('10');
      await dialog.getByRole('status').getByText('The balance will be -$2.00.').waitFor();
      await dialog.getByLabel('Reason (optional, for the audit log and the customer)').fill('Charged twice by the bank');
      expect(await noSidewaysScroll(page)).toBe(true);
      await dialog.getByRole('button', { name: 'Refund' }).click();
      await expectToast(page, 'Refund made', '$10.00 refunded. Credit note NH-CN-');
      expect(await balanceOf(customer)).toBe(-2);
      await context.close();

      const own = await app.newPage(viewport);
      await signIn(own.page, app.url, customer.email, customer.password);
      const banner = own.page.getByRole('region', { name: 'Your balance is -$2.00' });
      await banner.getByText(/^Why: Refund \(receipt NH-\d{4}-\d{6}\), \$10\.00 taken back on .+ \(credit note NH-CN-\d{4}-\d{6}\)\.$/).waitFor();
      await banner.getByText('Reason given: Charged twice by the bank').waitFor();
      expect(await noSidewaysScroll(own.page)).toBe(true);
      await banner.getByRole('link', { name: 'Add funds ($2.00) to bring the balance to zero' }).click();
      await own.page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
      expect(await own.page.getByLabel('Custom amount (USD)').inputValue()).toBe('2.00');
      expect([...errors, ...own.errors]).toEqual([]);
      await own.context.close();
    },
  );

  it.each(VIEWPORTS)(
    'leaves axe nothing serious or critical on the new screens in both themes, at %s',
    async (_label, viewport) => {
      for (const theme of THEMES) {
        const dark = theme === 'dark';
        // Suspended first (its renewal finds nothing), then an order that fails and comes back, then a refund below zero.
        const user = await createTestUser(app.server, { credits: 10 });
        await suspendedService(user, `${theme}-lapsed`);
        await addCredits(app.server.deps.db, user.id, 10, 'Credit');
        const failed = await failedOrder(user, `${theme}-failed`);
        await refundedBelowZero(user, 18, 'Charged twice by the bank');
        const admin = await createTestUser(app.server, { admin: true });
        const customer = await createTestUser(app.server);
        await paidWithTestProvider(customer, 10);
        await sql(`select private.post_transaction($1, -4, 'service_charge', 'Spent', null, $2)`, [customer.id, `spent-${customer.id}`]);
        for (const u of [user, admin]) expect((await u.client.from('profiles').update({ darkmode_enabled: dark }).eq('id', u.id)).error).toBeNull();

        const { page, context, errors } = await app.newPage(viewport);
        const check = async (where: string) => {
          await page.waitForLoadState('networkidle');
          await expect.poll(() => page.evaluate(() => document.documentElement.classList.contains('dark')), { message: `${theme} ${where}` }).toBe(dark);
          const found = await seriousViolations(page, { experimental: true });
          expect(found, `${theme} ${where} at ${viewport.width} px:\n${found.join('\n')}`).toEqual([]);
        };
        await signIn(page, app.url, user.email, user.password);
        await page
          .getByRole('region', { name: /^Your balance is -\$/ })
          .getByText('Reason given: Charged twice by the bank')
          .waitFor();
        await check('the overview, its balance below zero');
        await openSection(page, 'Services');
        await page
          .getByRole('article', { name: `${theme}-failed` })
          .getByText(failedInstallTexts.refunded('$10.00'))
          .waitFor();
        await page
          .getByRole('article', { name: `${theme}-lapsed` })
          .getByRole('link', { name: /^Add funds/ })
          .waitFor();
        await check('the services list, a failed and a suspended card');
        await page
          .getByRole('article', { name: `${theme}-failed` })
          .getByRole('button', { name: `Retry ${theme}-failed` })
          .click();
        await page
          .getByRole('dialog', { name: failedInstallTexts.retryTitle(`${theme}-failed`) })
          .getByText(/^Your balance: /)
          .waitFor();
        await check('the Retry dialog');
        await page.keyboard.press('Escape');
        await page.goto(`${app.url}/dashboard/services/${failed}`);
        await page
          .getByRole('region', { name: `${theme}-failed` })
          .getByText(failedInstallTexts.refunded('$10.00'))
          .waitFor();
        await check('the failed service page');
        await context.close();

        const adminPage = await app.newPage(viewport);
        await signIn(adminPage.page, app.url, admin.email, admin.password);
        await adminPage.page.goto(`${app.url}/admin/users/${customer.id}`);
        await adminPage.page
          .getByRole('region', { name: 'Credit purchases' })
          .getByRole('button', { name: /^Refund the purchase of/ })
          .click();
        await adminPage.page.getByRole('dialog', { name: 'Refund purchase' }).getByText('The balance will be -$4.00.').waitFor();
        await adminPage.page.waitForLoadState('networkidle');
        await expect.poll(() => adminPage.page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(dark);
        const found = await seriousViolations(adminPage.page, { experimental: true });
        expect(found, `${theme} the admin's refund dialog at ${viewport.width} px:\n${found.join('\n')}`).toEqual([]);
        expect([...errors, ...adminPage.errors]).toEqual([]);
        await adminPage.context.close();
      }
    },
    180_000,
  );
});

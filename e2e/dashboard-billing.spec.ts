import { beforeAll, describe, expect, it } from 'vitest';
import { createTestUser } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { answerJson, expectText, expectToast, serverError } from './helpers/page-tools';
import { DESKTOP, MOBILE, sharedApp, signIn, type TestApp } from './helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

const purchaseFn = (u: URL) => u.pathname === '/functions/v1/purchase-credits';

describe('billing', () => {
  it('shows the balance, recent transactions and the payment information', async () => {
    const user = await createTestUser(app.server, { credits: 25 });
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await page.getByRole('group', { name: 'Billing Status' }).getByText('$25.00').waitFor();
    await openSection(page, 'Billing');
    await expect.poll(() => page.getByLabel('Current balance').innerText()).toBe('$25.00');
    await expectText(page, 'Test credit');
    await expectText(page, '+$25.00');
    await expectText(page, 'No purchases yet.');
    await expectText(page, 'No unused purchased services.');
    await page.getByRole('button', { name: 'Payment processing info' }).click();
    const info = page.getByRole('dialog', { name: 'Payment processing' });
    await info.getByText('Approved payments reach your balance within 120 seconds.').waitFor();
    await info.getByText('The payment provider may take up to 48 hours to approve a payment.').waitFor();
    await info.getByText('Rejected payments are refunded within 2 days.').waitFor();
    await info.getByText('If a payment is still pending after 48 hours, please contact support.').waitFor();
    await page.keyboard.press('Escape');
    expect(errors).toEqual([]);
  });

  it('adds funds: a preset or a custom amount, one or the other, then the provider', async () => {
    const user = await createTestUser(app.server);
    const { page, context } = await app.newPage(MOBILE);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Billing');
    const card = page.getByRole('region', { name: 'Add Funds' });
    await card.getByRole('button', { name: '$25.00', exact: true }).click();
    await expect(card.getByRole('button', { name: '$25.00', exact: true }).getAttribute('aria-pressed')).resolves.toBe('true');
    await card.getByLabel('Custom amount (USD)').fill('0.5');
    await card.getByLabel('Custom amount (USD)').blur();
    await expect(card.getByRole('button', { name: '$25.00', exact: true }).getAttribute('aria-pressed')).resolves.toBe('false');
    await expectText(page, 'Minimum purchase is $1');
    await expect(card.getByRole('button', { name: 'Pay' }).isDisabled()).resolves.toBe(true);
    await card.getByRole('button', { name: '$50.00', exact: true }).click();
    await expect(card.getByLabel('Custom amount (USD)').inputValue()).resolves.toBe('');
    await card.getByLabel('Custom amount (USD)').fill('12.34');

    // The provider's side is built on another branch: its answer is stood in for here.
    let body: unknown;
    await context.route(purchaseFn, (r) => {
      body = r.request().postDataJSON();
      return answerJson(200, { approval_url: '/dashboard/billing?payment=success', purchase_id: 'p1' })(r);
    });
    await card.getByRole('button', { name: 'Pay $12.34' }).click();
    await expectToast(page, 'Payment Processed', 'Your balance has been updated.');
    expect(body).toEqual({ amount: 12.34, credits_amount: 12.34, user_id: user.id });
    await page.waitForURL(/\/dashboard\/billing$/);

    await context.unroute(purchaseFn);
    await context.route(purchaseFn, answerJson(500, { error: 'provider down' }));
    await card.getByRole('button', { name: '$5.00', exact: true }).click();
    await card.getByRole('button', { name: 'Pay $5.00' }).click();
    await expectToast(page, 'Failed to initiate payment');

    await page.goto(`${app.url}/dashboard/billing?payment=cancelled`);
    await expectToast(page, 'Payment cancelled');
    await page.goto(`${app.url}/dashboard/billing?payment=failed`);
    await expectToast(page, 'Payment failed');
  });

  it('lists purchases with their statuses and providers, a TEST one marked, and says when the balance cannot load', async () => {
    const user = await createTestUser(app.server);
    for (const status of ['pending', 'completed', 'rejected', 'expired']) {
      await app.server.deps.db.query(`insert into public.credit_purchases (user_id, amount, status, provider) values ($1, 10, $2, 'paypal')`, [
        user.id,
        status,
      ]);
    }
    await app.server.deps.db.query(`insert into public.credit_purchases (user_id, amount, status, provider) values ($1, 7, 'completed', 'test')`, [user.id]);
    const { page, context } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Billing');
    const history = page.getByRole('region', { name: 'Purchase History' });
    for (const label of ['Pending', 'Rejected', 'Expired']) await history.getByText(label, { exact: true }).waitFor();
    const rows = history.getByRole('row');
    await expect.poll(() => rows.count()).toBe(6);
    await expect.poll(() => rows.filter({ hasText: '$7.00' }).innerText()).toMatch(/\$7\.00\s+TEST — no money taken\s+Completed/);
    await expect.poll(() => rows.filter({ hasText: 'PayPal' }).count()).toBe(4);

    await context.route((u) => u.pathname === '/rest/v1/user_credits', serverError);
    await page.reload();
    await expectText(page, 'Failed to load account balance', 20_000);
  });
});

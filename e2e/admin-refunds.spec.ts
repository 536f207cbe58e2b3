import { beforeAll, describe, expect, it } from 'vitest';
import { refundTooMuchMessage } from '../src/shared/validation';
import { paidWithTestProvider } from '../test/payments/helpers';
import { createTestUser } from '../test/helpers/users';
import { sharedApp, signIn, type TestApp } from './helpers/app';
import { expectToast } from './helpers/page-tools';

// Issue 20, item 3, in the admin area: a refund from the purchase row of a user's page, and an
// account a reversal left owing money, flagged in the user list and on its page.

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

describe('refunds in the admin area', () => {
  it('refunds part of a purchase from its row: the amount is checked, the refund booked, the row and balance updated', async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const customer = await createTestUser(app.server);
    await paidWithTestProvider(customer, 25);
    const { page, context, errors } = await app.newPage({ width: 1366, height: 850 });
    await signIn(page, app.url, admin.email, admin.password);
    await page.goto(`${app.url}/admin/users/${customer.id}`);
    const purchases = page.getByRole('region', { name: 'Credit purchases' });
    await purchases.getByText(/^NH-\d{4}-\d{6}$/).waitFor();

    await purchases.getByRole('button', { name: /^Refund the purchase of \$25\.00/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Refund purchase' });
    const amount = dialog.getByLabel('Amount (USD), at most $25.00');
    expect(await amount.inputValue()).toBe('25.00');
    await amount.fill('30');
    await dialog.getByLabel('Reason (optional, for the audit log and the customer)').click();
    await dialog.getByText(refundTooMuchMessage(25)).waitFor();
    expect(await dialog.getByRole('button', { name: 'Refund' }).isDisabled()).toBe(true);

    await amount.fill('10');
    await dialog.getByLabel('Reason (optional, for the audit log and the customer)').fill('Asked by the customer');
    await dialog.getByRole('button', { name: 'Refund' }).click();
    await expectToast(page, 'Refund made', '$10.00 refunded. Credit note NH-CN-');
    await purchases.getByRole('cell', { name: '$10.00' }).waitFor();
    const balance = page
      .getByRole('region', { name: customer.email })
      .locator('div', { has: page.locator('dt', { hasText: /^Balance$/ }) })
      .locator('dd');
    await balance.getByText('$15.00').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('asks the provider again about a refund it did not answer, and books it once', async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const customer = await createTestUser(app.server);
    const purchaseId = await paidWithTestProvider(customer, 10);
    // As refund-purchase leaves a refund whose provider timed out: reserved, outcome unknown.
    await app.server.deps.db.query(
      `insert into public.credit_refunds (purchase_id, user_id, amount, kind, requested_by, unknown_since, failure)
       values ($1, $2, 5, 'refund', $3, now(), 'The provider did not answer')`,
      [purchaseId, customer.id, admin.id],
    );
    const { page, context, errors } = await app.newPage({ width: 390, height: 844 });
    await signIn(page, app.url, admin.email, admin.password);
    await page.goto(`${app.url}/admin/users/${customer.id}`);
    const purchases = page.getByRole('region', { name: 'Credit purchases' });
    await purchases.getByRole('button', { name: 'Ask the provider again about the unanswered refund of $5.00' }).click();
    await expectToast(page, 'Refund made', '$5.00 refunded. Credit note NH-CN-');
    await purchases.getByRole('cell', { name: '$5.00' }).waitFor();
    await purchases.getByRole('button', { name: /^Ask the provider again/ }).waitFor({ state: 'detached' });
    const { rows } = await app.server.deps.db.query<{ n: number }>(`select count(*)::int as n from public.credit_refunds where purchase_id = $1`, [purchaseId]);
    expect(rows[0]!.n).toBe(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('flags an account a reversal left owing money, in the list and on its page', async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const customer = await createTestUser(app.server);
    const purchaseId = await paidWithTestProvider(customer, 10);
    const db = app.server.deps.db;
    await db.query(`select private.post_transaction($1, -6, 'service_charge', 'Spent', null, $2)`, [customer.id, `spent-${customer.id}`]);
    await db.query(`select private.book_refund($1, null, $2, 'USD', '10.00', 'reversal', '{"name": "NodeHarbor"}')`, [
      purchaseId,
      `REVERSAL-E2E-${purchaseId}`,
    ]);

    const { page, context, errors } = await app.newPage({ width: 1366, height: 850 });
    await signIn(page, app.url, admin.email, admin.password);
    await page.goto(`${app.url}/admin`);
    const users = page.getByRole('region', { name: 'Users' });
    await users.getByRole('searchbox', { name: 'Search users by email' }).fill(customer.email);
    await users.getByRole('button', { name: 'Search' }).click();
    const row = users.getByRole('row', { name: new RegExp(customer.email.replace(/[.]/g, '\\.')) });
    await row.getByText('Negative balance').waitFor();
    await row.getByText('-$6.00').waitFor();
    await users.getByRole('link', { name: customer.email }).click();
    await page.getByRole('region', { name: customer.email }).getByText('Negative balance').waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});

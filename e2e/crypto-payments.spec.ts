import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingPolicy } from '../src/shared/billing-policy';
import { cryptoMessages } from '../src/shared/crypto-payments';
import { SUSPENSION_DAYS } from '../src/shared/constants';
import { expectLedgerBalanced } from '../test/helpers/ledger';
import { createTestUser } from '../test/helpers/users';
import { purchase, purchaseRow } from '../test/payments/helpers';
import { nowPaymentsServerEnv, startNowPaymentsStandIn, type NowPaymentsStandIn } from '../test/payments/nowpayments-stand-in';
import { openSection } from './dashboard-helpers';
import { expectToast } from './helpers/page-tools';
import { signIn, startApp, type TestApp } from './helpers/app';

// Issue 38, item 1: Billing › Add Funds › "Pay with crypto" → the processor's hosted invoice (a
// local stand-in of NOWPayments) → back to Billing, credited once.

let np: NowPaymentsStandIn;
let app: TestApp;
beforeAll(async () => {
  np = await startNowPaymentsStandIn();
  app = await startApp(nowPaymentsServerEnv(np));
});
afterAll(async () => {
  await expectLedgerBalanced(app.server.deps.db);
  await app?.stop();
  await np?.stop();
});

describe('crypto top-ups', () => {
  it('pays with crypto on the hosted invoice, comes back to "Payment Processed" with the amount, and lists it by its processor', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage();
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Billing');
    const card = page.getByRole('region', { name: 'Add Funds' });
    await card.getByLabel('Custom amount (USD)').fill('17.50');
    await card.getByRole('button', { name: cryptoMessages.payWithCrypto }).click();
    await page.waitForURL(`${np.origin}/payment/?iid=*`);
    await page.getByRole('button', { name: 'Pay with USDT' }).click();
    await expectToast(page, 'Payment Processed', '$17.50 was added to your balance.');
    await page.waitForURL(/\/dashboard\/billing$/);
    const history = page.getByRole('region', { name: 'Purchase History' });
    const row = history.getByRole('row').filter({ hasText: 'Crypto (NOWPayments)' });
    await expect(row.innerText()).resolves.toMatch(/\$17\.50[\s\S]*Completed/);
    await expect(row.getByRole('button', { name: /^Download receipt NH-/ }).count()).resolves.toBe(1);
    expect(errors).toEqual([]);
  });

  it('shows an underpaid top-up with what it credited and why, and the terms say crypto is final on chain', async () => {
    const user = await createTestUser(app.server);
    const r = await purchase(user.client, { amount: 20, credits_amount: 20, method: 'crypto' });
    await np.pay(Number((await purchaseRow(app.server, String(r.body.purchase_id)))!.provider_order_id), { fraction: 0.5, status: 'partially_paid' });
    const { page } = await app.newPage();
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Billing');
    const history = page.getByRole('region', { name: 'Purchase History' });
    await history.getByText('Credited $10.00').waitFor();
    await history.getByText(cryptoMessages.underpaid(10, 20)).waitFor();

    await page.goto(`${app.url}/terms`);
    const crypto = billingPolicy(SUSPENSION_DAYS, true).find((p) => p.heading === 'Crypto payments')!;
    await page.getByText(crypto.text).waitFor();
  });
});

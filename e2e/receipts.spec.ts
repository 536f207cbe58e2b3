import { readFile } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { captureAndCredit } from '../src/server/payments/settle';
import { decideTestOrder } from '../src/server/payments/test-provider';
import { invokeFunction } from '../test/helpers/functions';
import { expectLedgerBalanced } from '../test/helpers/ledger';
import { pdfText } from '../test/helpers/pdf-text';
import { createTestUser, type TestUser } from '../test/helpers/users';
import { purchase } from '../test/payments/helpers';
import { statementMessages, statementMonthName } from '../src/shared/statements';
import { openSection } from './dashboard-helpers';
import { answerJson, expectToast, serverError } from './helpers/page-tools';
import { sharedApp, signIn, type TestApp } from './helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});
afterEach(() => expectLedgerBalanced(app.server.deps.db));

/** A purchase through the test provider, approved and credited: its id and receipt number. */
async function completedPurchase(user: TestUser, amount: number): Promise<{ purchaseId: string; receipt: string }> {
  const r = await purchase(user.client, { amount, credits_amount: amount });
  const orderId = String(r.body.approval_url).split('/').at(-1)!;
  await decideTestOrder(app.server.deps.db, orderId, true);
  expect(await captureAndCredit(app.server.deps, orderId)).toBe('completed');
  const { rows } = await app.server.deps.db.query<{ number: string }>(
    `select number from public.billing_documents where purchase_id = $1 and kind = 'receipt'`,
    [r.body.purchase_id],
  );
  return { purchaseId: String(r.body.purchase_id), receipt: rows[0]!.number };
}

const purchases = (page: Page) => page.getByRole('region', { name: 'Purchase History' });

/** Clicks a download button and returns the file's name and bytes. */
async function download(page: Page, name: string): Promise<{ name: string; bytes: Buffer }> {
  const [file] = await Promise.all([page.waitForEvent('download'), purchases(page).getByRole('button', { name }).click()]);
  return { name: file.suggestedFilename(), bytes: await readFile((await file.path())!) };
}

describe('Billing › Purchase History documents', () => {
  it('downloads the receipt of a completed purchase and the credit note of its refund', async () => {
    const user = await createTestUser(app.server, { fullName: 'Grace Hopper' });
    const admin = await createTestUser(app.server, { admin: true });
    const { purchaseId, receipt } = await completedPurchase(user, 15);
    const refunded = await invokeFunction(admin.client, 'refund-purchase', { purchase_id: purchaseId, amount: 4 });
    const note = String(refunded.body.credit_note);

    const { page, errors } = await app.newPage();
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Billing');
    await purchases(page).getByText(`Receipt ${receipt}`).waitFor();
    await purchases(page).getByText(`Credit note ${note}`).waitFor();

    const got = await download(page, `Download receipt ${receipt}`);
    expect(got.name).toBe(`${receipt}.pdf`);
    expect(got.bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const text = await pdfText(got.bytes);
    expect(text).toContain('$15.00 USD');
    expect(text).toContain('Grace Hopper');

    const credit = await download(page, `Download credit note ${note}`);
    expect(credit.name).toBe(`${note}.pdf`);
    expect(await pdfText(credit.bytes)).toContain(`Corrects receipt ${receipt}`);
    expect(errors).toEqual([]);

    // The admin's mail outbox names the file the payment mail carries.
    const { page: adminPage } = await app.newPage();
    await signIn(adminPage, app.url, admin.email, admin.password);
    await openSection(adminPage, 'Admin Dashboard');
    await adminPage.getByRole('tab', { name: 'Messages' }).click();
    const outbox = adminPage.getByRole('region', { name: 'Mail outbox' });
    await outbox.getByRole('searchbox', { name: 'Search mail by recipient' }).fill(user.email);
    await outbox.getByRole('button', { name: 'Search' }).click();
    const mail = outbox.getByRole('row').filter({ hasText: '[TEST] We received your payment of $15.00' });
    await expect(mail.innerText()).resolves.toContain(`Attached: ${receipt}.pdf`);
  });

  it('says so when the document cannot be downloaded', async () => {
    const user = await createTestUser(app.server);
    const { receipt } = await completedPurchase(user, 5);
    const { page, context } = await app.newPage();
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Billing');
    await context.route('**/functions/v1/billing-document', serverError);
    await purchases(page)
      .getByRole('button', { name: `Download receipt ${receipt}` })
      .click();
    await expectToast(page, 'Could not download the document', 'Please try again.');
    await expect(
      purchases(page)
        .getByRole('button', { name: `Download receipt ${receipt}` })
        .isEnabled(),
    ).resolves.toBe(true);
  });
});

describe('Billing › Statements', () => {
  const statements = (page: Page) => page.getByRole('region', { name: 'Statements' });

  it('lists the month with its balances and downloads its statement as a PDF and a CSV; a new customer has none', async () => {
    const user = await createTestUser(app.server, { fullName: 'Zoë Łukasz' });
    const admin = await createTestUser(app.server, { admin: true });
    const { purchaseId } = await completedPurchase(user, 15);
    await invokeFunction(admin.client, 'refund-purchase', { purchase_id: purchaseId, amount: 4 });
    const month = new Date().toISOString().slice(0, 7);
    const name = statementMonthName(month);

    const { page, errors } = await app.newPage();
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Billing');
    const row = statements(page).getByRole('row').filter({ hasText: name });
    await expect(row.innerText()).resolves.toMatch(/\$0\.00\s+\$11\.00/);

    const click = async (format: 'PDF' | 'CSV') => {
      const [file] = await Promise.all([
        page.waitForEvent('download'),
        statements(page)
          .getByRole('button', { name: `Download the ${name} statement as ${format}` })
          .click(),
      ]);
      return { name: file.suggestedFilename(), bytes: await readFile((await file.path())!) };
    };
    const pdf = await click('PDF');
    expect(pdf.name).toBe(`nodeharbor-statement-${month}.pdf`);
    const text = await pdfText(pdf.bytes);
    for (const part of ['Zoë Łukasz', 'Opening balance: $0.00', 'Closing balance: $11.00', '$15.00', '-$4.00']) expect(text).toContain(part);
    const csv = await click('CSV');
    expect(csv.name).toBe(`nodeharbor-statement-${month}.csv`);
    // The byte order mark survives the download: spreadsheets read the file as UTF-8.
    expect(csv.bytes.subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const lines = csv.bytes.toString('utf8').split('\r\n');
    expect(lines[1]).toContain('"Opening balance"');
    expect(lines.filter((l) => l.includes('"Purchase"') && l.includes('"15.00","15.00"'))).toHaveLength(1);
    expect(lines.filter((l) => l.includes('"Refund"') && l.includes('"-4.00","11.00"'))).toHaveLength(1);
    expect(errors).toEqual([]);

    const fresh = await createTestUser(app.server);
    const { page: freshPage } = await app.newPage();
    await signIn(freshPage, app.url, fresh.email, fresh.password);
    await openSection(freshPage, 'Billing');
    await statements(freshPage).getByText(statementMessages.empty).waitFor();
  });

  it('says why a statement cannot be downloaded, and when the list cannot be loaded', async () => {
    const user = await createTestUser(app.server);
    await completedPurchase(user, 5);
    const name = statementMonthName(new Date().toISOString().slice(0, 7));
    const { page, context } = await app.newPage();
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Billing');
    await context.route('**/functions/v1/billing-statement', answerJson(429, { error: statementMessages.tooMany(4) }));
    const button = statements(page).getByRole('button', { name: `Download the ${name} statement as PDF` });
    await button.click();
    await expectToast(page, statementMessages.downloadFailed, statementMessages.tooMany(4));
    await expect(button.isEnabled()).resolves.toBe(true);

    await context.route('**/rest/v1/rpc/get_statement_months', serverError);
    await page.reload();
    await statements(page).getByRole('alert').filter({ hasText: 'Failed to load statements' }).waitFor();
  });
});

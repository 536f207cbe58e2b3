import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ledgerMessages } from '../src/shared/ledger';
import { expectLedgerBalanced, postDated } from '../test/helpers/ledger';
import { createTestUser, type TestUser } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { expectText, expectToast, holdRequests, serverError } from './helpers/page-tools';
import { sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';

const WIDE = { width: 1366, height: 900 } as const;
const PHONE = { width: 390, height: 844 } as const;

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});
afterEach(() => expectLedgerBalanced(app.server.deps.db));

const poll = <T>(fn: () => Promise<T>) => expect.poll(fn, { timeout: 15_000 });
const ledgerApi = (u: URL) => u.pathname === '/rest/v1/credit_transactions';

/**
 * A user with 30 transactions, one a day from 1 February 2026 at noon UTC: a purchase first, a
 * refund every fifth day, service charges between; one description has a comma and quotes, one
 * begins like a spreadsheet formula.
 */
async function userWithLedger(): Promise<TestUser> {
  const user = await createTestUser(app.server);
  await postDated(
    app.server.deps.db,
    user.id,
    Array.from({ length: 30 }, (_, i) => ({
      type: i === 0 ? 'purchase' : i % 5 === 0 ? 'refund' : 'service_charge',
      amount: i === 0 ? 100 : i % 5 === 0 ? 1.5 : -2,
      description: i === 3 ? 'Charge for "alpha", renewed' : i === 7 ? '=HYPERLINK("http://evil.test")' : `Row ${i + 1}`,
      at: new Date(Date.UTC(2026, 1, 1 + i, 12)).toISOString(),
    })),
  );
  return user;
}

async function open(page: Page, user: TestUser, query = '') {
  await signIn(page, app.url, user.email, user.password);
  await page.goto(`${app.url}/dashboard/billing/transactions${query}`);
  await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
}

const ledger = (page: Page) => page.getByRole('region', { name: 'All transactions' });
/** The rows' descriptions, as shown. */
const descriptions = (region: Locator) => region.locator('tbody tr td:nth-child(3) > span:last-child').allInnerTexts();

async function expectNoSidewaysScroll(page: Page, where: string) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth, where).toBeLessThanOrEqual(innerWidth);
}

/** Clicks Download CSV and returns the file's name and text. */
async function downloadCsv(page: Page): Promise<{ name: string; text: string }> {
  const [download] = await Promise.all([page.waitForEvent('download'), ledger(page).getByRole('button', { name: 'Download CSV' }).click()]);
  return { name: download.suggestedFilename(), text: await readFile((await download.path())!, 'utf8') };
}

const TODAY = new Date().toISOString().slice(0, 10);

describe.each([
  ['wide', WIDE],
  ['phone', PHONE],
] as [string, Viewport][])('Billing › Transactions (%s)', (_, viewport) => {
  it('is reached from the balance card, pages through the whole ledger and keeps its page in the address', async () => {
    const user = await userWithLedger();
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Billing');
    await page.getByRole('link', { name: 'View all transactions' }).click();
    await page.getByRole('heading', { level: 1, name: 'Transactions' }).waitFor();
    await poll(() => page.title()).toBe('Transactions | NodeHarbor');
    const region = ledger(page);
    await expectText(page, '1–25 of 30');
    expect(await descriptions(region)).toEqual(Array.from({ length: 25 }, (_, i) => (30 - i === 8 ? '=HYPERLINK("http://evil.test")' : `Row ${30 - i}`)));
    // Dates in the user's time zone and language (UTC, en-US), types in words, amounts signed.
    const newest = region.locator('tbody tr').first();
    await expect(newest.innerText()).resolves.toMatch(/Mar 2, 2026, 12:00 PM[\s\S]*Service charge[\s\S]*Row 30[\s\S]*-\$2\.00/);
    await expect(region.locator('tbody tr').nth(4).innerText()).resolves.toMatch(/Refund[\s\S]*\+\$1\.50/);
    await expectNoSidewaysScroll(page, 'first page');

    await region.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/[?&]page=2/);
    await expectText(page, '26–30 of 30');
    expect(await descriptions(region)).toEqual(['Row 5', 'Charge for "alpha", renewed', 'Row 3', 'Row 2', 'Row 1']);
    await expect(region.locator('tbody tr').last().innerText()).resolves.toMatch(/Purchase[\s\S]*\+\$100\.00/);
    await page.reload();
    await expectText(page, '26–30 of 30');
    await expectText(page, 'Page 2 of 2');
    await expectNoSidewaysScroll(page, 'second page');
    expect(errors).toEqual([]);
  });

  it('filters by type and dates in the address, and downloads the filtered set from every page as CSV', async () => {
    const user = await userWithLedger();
    const { page, errors } = await app.newPage(viewport);
    await open(page, user);
    const region = ledger(page);
    await expectText(page, '1–25 of 30');

    await region.getByLabel('Type').selectOption({ label: 'Service charge' });
    await region.getByLabel('From').fill('2026-02-03');
    await region.getByLabel('To').fill('2026-02-28');
    await region.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.waitForURL(/type=service_charge&from=2026-02-03&to=2026-02-28$/);
    // Days 3 to 28 less the refunds of days 6, 11, 16, 21 and 26: 21 charges, on one page.
    await expectText(page, '1–21 of 21');
    expect((await descriptions(region))[0]).toBe('Row 28');
    expect((await descriptions(region)).at(-1)).toBe('Row 3');
    await page.reload();
    await expectText(page, '1–21 of 21');
    await expect(region.getByLabel('From').inputValue()).resolves.toBe('2026-02-03');

    const csv = await downloadCsv(page);
    expect(csv.name).toBe(`nodeharbor-transactions-${TODAY}.csv`);
    const lines = csv.text.replace(/^\uFEFF/, '').split('\r\n');
    expect(lines[0]).toBe('"Date","Type","Description","Amount","Transaction ID","Service ID"');
    expect(lines).toHaveLength(1 + 21 + 1);
    expect(lines[1]).toMatch(/^"2026-02-03T12:00:00\.000Z","Service charge","Row 3","-2\.00","[0-9a-f-]{36}",""$/);
    expect(lines[2]).toMatch(/^"2026-02-04T12:00:00\.000Z","Service charge","Charge for ""alpha"", renewed","-2\.00",/);
    expect(lines[5]).toMatch(/^"2026-02-08T12:00:00\.000Z","Service charge","'=HYPERLINK\(""http:\/\/evil\.test""\)","-2\.00",/);
    expect(lines.at(-1)).toBe('');

    // The whole ledger, both pages of it.
    await region.getByRole('button', { name: 'Clear filters' }).click();
    await expectText(page, '1–25 of 30');
    const all = (await downloadCsv(page)).text.replace(/^\uFEFF/, '').split('\r\n');
    expect(all).toHaveLength(1 + 30 + 1);
    expect(all[1]).toMatch(/^"2026-02-01T12:00:00\.000Z","Purchase","Row 1","100\.00",/);
    expect(all[6]).toMatch(/,"Refund","Row 6","1\.50",/);

    await region.getByLabel('From').fill('2025-01-01');
    await region.getByLabel('To').fill('2025-01-31');
    await region.getByRole('button', { name: 'Filter', exact: true }).click();
    await expectText(page, ledgerMessages.noMatch);
    await expect(region.getByRole('button', { name: 'Download CSV' }).isDisabled()).resolves.toBe(true);
    await expectNoSidewaysScroll(page, 'filtered');
    expect(errors).toEqual([]);
  });
});

// Item 7 of issue 33: the file the browser writes holds no formula a spreadsheet would run.
describe('Billing › Transactions, the CSV in a spreadsheet', () => {
  it('quotes every cell and writes no description a spreadsheet would run, at its start or after a separator, with amounts left numbers', async () => {
    const user = await createTestUser(app.server);
    const descriptions = ['=HYPERLINK("http://evil.test")', '-2+3+cmd', '@SUM(A1)', '\tTab first', 'Node a;=1+1', 'Node b, +1', 'Plain, fine; words'];
    await postDated(
      app.server.deps.db,
      user.id,
      descriptions.map((description, i) => ({
        type: i === 0 ? 'purchase' : 'service_charge',
        amount: i === 0 ? 50 : -1.25,
        description,
        at: `2026-02-0${i + 1}T12:00:00Z`,
      })),
    );
    const { page, errors } = await app.newPage(WIDE);
    await open(page, user);
    await expectText(page, '1–7 of 7');
    const rows = (await downloadCsv(page)).text
      .replace(/^\uFEFF/, '')
      .split('\r\n')
      .slice(1, -1);
    // Oldest first; the description is the third cell, the amount the fourth.
    expect(rows.map((r) => r.split('","').slice(2, 4))).toEqual([
      [`'=HYPERLINK(""http://evil.test"")`, '50.00'],
      ["'-2+3+cmd", '-1.25'],
      ["'@SUM(A1)", '-1.25'],
      ["'\tTab first", '-1.25'],
      ["Node a;'=1+1", '-1.25'],
      ["Node b,' +1", '-1.25'],
      ['Plain, fine; words', '-1.25'],
    ]);
    for (const r of rows) expect(r).toMatch(/^"[^"].*"$/);
    expect(errors).toEqual([]);
  });
});

describe('Billing › Transactions, what goes wrong', () => {
  it('refuses a From after its To, and an address with an unknown type or a date that is not one, changing nothing', async () => {
    const user = await userWithLedger();
    const { page, errors } = await app.newPage(WIDE);
    await open(page, user, '?type=refund');
    const region = ledger(page);
    await expectText(page, '1–5 of 5');
    await region.getByLabel('From').fill('2026-02-20');
    await region.getByLabel('To').fill('2026-02-10');
    await region.getByRole('button', { name: 'Filter', exact: true }).click();
    await expectText(page, ledgerMessages.fromAfterTo);
    expect(new URL(page.url()).search).toBe('?type=refund');
    await expectText(page, '1–5 of 5');

    await page.goto(`${app.url}/dashboard/billing/transactions?type=gift`);
    await expectText(page, ledgerMessages.unknownType('gift'));
    await expect(region.locator('tbody tr').count()).resolves.toBe(0);
    await expect(region.getByRole('button', { name: 'Download CSV' }).isDisabled()).resolves.toBe(true);
    await page.goto(`${app.url}/dashboard/billing/transactions?from=2026-02-30`);
    await expectText(page, ledgerMessages.badDate('From'));
    await page.goto(`${app.url}/dashboard/billing/transactions?to=tomorrow`);
    await expectText(page, ledgerMessages.badDate('To'));
    await page.goto(`${app.url}/dashboard/billing/transactions?from=2026-02-20&to=2026-02-10`);
    await expectText(page, ledgerMessages.fromAfterTo);

    expect(errors).toEqual([]);

    // A page past the last shows the last one. The server answers its range 416, as PostgREST does, which the browser logs.
    await page.goto(`${app.url}/dashboard/billing/transactions?page=9`);
    await page.waitForURL(/\?page=2$/);
    await expectText(page, '26–30 of 30');
    expect(errors).toEqual(['Failed to load resource: the server responded with a status of 416 (Range Not Satisfiable)']);
  });

  it('says when there are no transactions, when they cannot load, and when the CSV cannot be made', async () => {
    const empty = await createTestUser(app.server);
    const { page, context } = await app.newPage(WIDE);
    // Past the last page, even of none: the first.
    await open(page, empty, '?page=3');
    await page.waitForURL(/\/transactions$/);
    await expectText(page, ledgerMessages.none);

    const user = await userWithLedger();
    await page.context().clearCookies();
    await page.evaluate(() => localStorage.clear());
    await open(page, user);
    await expectText(page, '1–25 of 30');
    await context.route(ledgerApi, serverError);
    await ledger(page).getByRole('button', { name: 'Download CSV' }).click();
    await expectToast(page, 'Failed to download the transactions', 'Please try again.');
    await page.reload();
    await expectText(page, 'Failed to load transactions');
  });

  it('says when the transactions and the CSV are loading, and leads back to Billing', async () => {
    const user = await userWithLedger();
    const { page } = await app.newPage(WIDE);
    await signIn(page, app.url, user.email, user.password);
    const release = await holdRequests(page, '**/rest/v1/credit_transactions?*');
    await page.goto(`${app.url}/dashboard/billing/transactions`);
    await expectText(page, 'Loading transactions...');
    release();
    await expectText(page, '1–25 of 30');
    await page.unroute('**/rest/v1/credit_transactions?*');
    const releaseCsv = await holdRequests(page, '**/rest/v1/credit_transactions?*');
    const download = page.waitForEvent('download');
    await ledger(page).getByRole('button', { name: 'Download CSV' }).click();
    await ledger(page).getByRole('button', { name: 'Preparing CSV...' }).waitFor();
    releaseCsv();
    await download;
    await ledger(page).getByRole('button', { name: 'Download CSV' }).waitFor();
    await page.getByRole('link', { name: 'Back to Billing' }).click();
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
  });
});

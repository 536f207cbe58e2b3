import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { statementMoney } from '../../src/server/billing/statement-pdf';
import { enqueue } from '../../src/server/jobs/queue';
import { lastMonth, queueStatementNotices, STATEMENT_NOTICE_DAYS } from '../../src/server/jobs/tasks/statement-notices';
import { statementMessages, statementMonthName } from '../../src/shared/statements';
import { invokeFunction } from '../helpers/functions';
import { startTestServer, type TestServer } from '../helpers/server';
import { expectLedgerBalanced } from '../helpers/ledger';
import { embeddedGlyphOutlines, pdfText } from '../helpers/pdf-text';
import { createService, createTestUser, type TestUser } from '../helpers/users';
import { queueIsIdle, startLifecycleServer, waitFor } from '../lifecycle/helpers';
import { paidWithTestProvider } from './helpers';

// Issue 38, item 2: a statement per month, drawn on demand from the ledger, as a PDF and a CSV.

const SELLER_ENV = { BILLING_COMPANY_NAME: 'Harbor Test Ltd', BILLING_ADDRESS: '1 Quay Street\nPortsmouth PO1 1AA', BILLING_TAX_ID: 'GB123456789' };

let s: Awaited<ReturnType<typeof startLifecycleServer>>;
let admin: TestUser;
beforeAll(async () => {
  s = await startLifecycleServer(SELLER_ENV);
  admin = await createTestUser(s, { admin: true });
});
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

/** The billing-statement function as a browser calls it, answered as bytes with its headers. */
async function download(token: string, body: unknown) {
  const res = await fetch(`${s.url}/functions/v1/billing-statement`, {
    method: 'POST',
    headers: { apikey: s.anonKey, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

/** A CSV as rows of cells (every cell quoted, as the shared writer writes it). */
function parseCsv(text: string): string[][] {
  expect(text.startsWith('\uFEFF')).toBe(true);
  return text
    .slice(1)
    .split('\r\n')
    .filter(Boolean)
    .map((row) => [...row.matchAll(/"((?:[^"]|"")*)"/g)].map((m) => m[1]!.replaceAll('""', '"')));
}

/** What the hourly task is given: the server's database and mailer, and its public address. */
const jobDeps = () => ({ ...s.deps, publicUrl: s.url });
const drain = () => waitFor('the queue to drain', () => queueIsIdle(s.deps.db));
async function sweep() {
  await enqueue(s.deps.db, 'renewal-sweep', {});
  await drain();
}
const state = async (id: string) =>
  (await s.deps.db.query<{ state: string }>('select state::text as state from private.services where id = $1', [id])).rows[0]!.state;
const thisMonth = async () => (await s.deps.db.query<{ m: string }>(`select to_char(now() at time zone 'UTC', 'YYYY-MM') as m`)).rows[0]!.m;

describe('a month with a top-up, two charges, a refund and a suspension', () => {
  let owner: TestUser;
  let serviceId: string;
  let month: string;
  beforeAll(async () => {
    month = await thisMonth();
    owner = await createTestUser(s, { fullName: 'Łukasz Zoë 王' });
    await s.deps.db.query(`update public.profiles set company = 'Zoë Nodes GmbH', company_vat = 'DE123456789' where id = $1`, [owner.id]);
    const purchaseId = await paidWithTestProvider(owner, 25); // +25
    serviceId = await createService(owner, 'lukasz-node'); // -10, its first period
    await waitFor('the install', async () => (await state(serviceId)) === 'active');
    await s.deps.db.query(`update private.services set renews_at = now() - interval '1 minute' where id = $1`, [serviceId]);
    await sweep(); // -10, renewed
    expect(await state(serviceId)).toBe('active');
    const refund = await invokeFunction(admin.client, 'refund-purchase', { purchase_id: purchaseId, amount: 3 }); // -3
    expect(refund.status).toBe(200);
    await s.deps.db.query(`update private.services set renews_at = now() - interval '1 minute' where id = $1`, [serviceId]);
    await sweep(); // $2 left for a $10 renewal: suspended
    expect(await state(serviceId)).toBe('suspended');
  });

  /** The month's ledger rows, oldest first, as the database has them. */
  async function ledger() {
    const { rows } = await s.deps.db.query<{ id: string; type: string; description: string; amount: string; created_at: Date }>(
      `select id, type, description, amount, created_at from public.credit_transactions
        where user_id = $1 and to_char(created_at at time zone 'UTC', 'YYYY-MM') = $2 order by created_at, id`,
      [owner.id, month],
    );
    return rows;
  }

  it('lists the month in Billing › Statements with its opening and closing balance', async () => {
    const { data, error } = await owner.client.rpc('get_statement_months');
    expect(error).toBeNull();
    expect(data).toEqual([{ month, opening: 0, closing: 2, lines: 5 }]);
  });

  it('the CSV has the opening balance, every ledger line with its running balance and the period a charge paid for, the suspension, and the closing balance', async () => {
    const res = await download(owner.token, { month, format: 'csv' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="nodeharbor-statement-${month}.csv"`);
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    const [head, opening, ...rest] = parseCsv(res.bytes.toString('utf8'));
    const closing = rest.pop()!;
    expect(head).toEqual(['Date', 'Type', 'Description', 'Service ID', 'Period start', 'Period end', 'Amount', 'Balance', 'Transaction ID']);
    expect(opening).toEqual([`${month}-01T00:00:00.000Z`, 'Opening balance', '', '', '', '', '', '0.00', '']);
    expect(closing.slice(1)).toEqual(['Closing balance', '', '', '', '', '', '2.00', '']);

    const rows = await ledger();
    expect(rows.map((r) => r.type)).toEqual(['purchase', 'service_charge', 'service_charge', 'refund']);
    const lines = rest.filter((l) => l[1] !== 'Suspension');
    let running = 0;
    rows.forEach((r, i) => {
      running += Number(r.amount);
      expect(lines[i]).toEqual([
        r.created_at.toISOString(),
        { purchase: 'Purchase', service_charge: 'Service charge', refund: 'Refund' }[r.type],
        r.description,
        r.type === 'service_charge' ? serviceId : '',
        expect.any(String),
        expect.any(String),
        Number(r.amount).toFixed(2),
        running.toFixed(2),
        r.id,
      ]);
    });
    // Each charge names the period it paid for: the first from its creation, the renewal the next one.
    const [creation, renewal] = lines.filter((l) => l[1] === 'Service charge');
    expect(creation![4]).toBe(creation![0]);
    expect(Date.parse(creation![5]!)).toBeGreaterThan(Date.parse(creation![4]!));
    expect(Date.parse(renewal![5]!)).toBeGreaterThan(Date.parse(renewal![4]!));
    for (const l of lines.filter((l) => l[1] !== 'Service charge')) expect([l[4], l[5]]).toEqual(['', '']);

    // The suspension is a line without an amount, last, after the refund that left $2.
    expect(rest.at(-1)).toEqual([
      expect.any(String),
      'Suspension',
      'lukasz-node suspended: the balance did not cover its renewal',
      serviceId,
      '',
      '',
      '',
      '2.00',
      '',
    ]);
  });

  it('the PDF carries the seller, the buyer with company and VAT number, and every line with its amount and balance, in the fonts that draw its names', async () => {
    const res = await download(owner.token, { month, format: 'pdf' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toBe(`attachment; filename="nodeharbor-statement-${month}.pdf"`);
    const text = (await pdfText(res.bytes)).replace(/\s+/g, ' ');
    for (const part of ['Harbor Test Ltd', '1 Quay Street', 'Tax ID: GB123456789', 'Statement', statementMonthName(month)]) expect(text).toContain(part);
    for (const part of ['Łukasz Zoë 王', 'Zoë Nodes GmbH', 'VAT number: DE123456789', owner.email]) expect(text).toContain(part);
    expect(text).toContain('Opening balance: $0.00');
    expect(text).toContain('Closing balance: $2.00');

    // Line by line, in the ledger's order: each description, then its amount and the balance after it.
    let running = 0;
    let at = text.indexOf('Opening balance');
    for (const r of await ledger()) {
      running += Number(r.amount);
      const next = text.indexOf(r.description, at);
      expect(next, r.description).toBeGreaterThan(at);
      const row = text.slice(next, next + r.description.length + 120);
      expect(row).toContain(`${statementMoney(Number(r.amount))} ${statementMoney(running)}`);
      at = next;
    }
    expect(text.indexOf('lukasz-node suspended: the balance did not cover its renewal', at)).toBeGreaterThan(at);
    expect(text).toMatch(/Paid period: \w{3} \d{1,2}, \d{4} – \w{3} \d{1,2}, \d{4}/);
    // Every embedded font draws its glyphs: 王 comes from Noto, the rest from DejaVu.
    for (const outlined of embeddedGlyphOutlines(res.bytes)) expect(outlined).toBeGreaterThan(0);
  });

  it('tells another customer nothing of the month, and refuses a month that is not one, or an unknown format', async () => {
    const other = await createTestUser(s);
    const foreign = await download(other.token, { month, format: 'pdf' });
    expect(foreign.status).toBe(404);
    expect(JSON.parse(foreign.bytes.toString())).toEqual({ error: statementMessages.none(month) });
    expect((await other.client.rpc('get_statement_months')).data).toEqual([]);
    for (const bad of ['2026-13', '2026-1', 'October', '', null, 202610]) {
      const r = await download(owner.token, { month: bad, format: 'pdf' });
      expect(r.status).toBe(400);
      expect(JSON.parse(r.bytes.toString())).toEqual({ error: statementMessages.badMonth });
    }
    const r = await download(owner.token, { month, format: 'xlsx' });
    expect(JSON.parse(r.bytes.toString())).toEqual({ error: statementMessages.badFormat });
    // The SQL function says the same as the server, word for word.
    const sql = await owner.client.rpc('get_statement', { p_month: '2026-13' });
    expect(sql.error?.message).toBe(statementMessages.badMonth);
    const none = await owner.client.rpc('get_statement', { p_month: '1999-01' });
    expect(none.error?.message).toBe(statementMessages.none('1999-01'));
    const anonymous = await fetch(`${s.url}/functions/v1/billing-statement`, {
      method: 'POST',
      headers: { apikey: s.anonKey, Authorization: `Bearer ${s.anonKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ month, format: 'csv' }),
    });
    expect(anonymous.status).toBe(401);
  });

  it('on the 1st, tells each customer with a line last month once that the statement is ready, unless they turned it off', async () => {
    // The day after this month ends, as the hourly task would see it.
    const [y, m] = month.split('-').map(Number);
    const first = new Date(Date.UTC(y!, m!, 1, 0, 30));
    expect(lastMonth(first).month).toBe(month);
    const quiet = await createTestUser(s);
    await paidWithTestProvider(quiet, 5);
    expect((await quiet.client.rpc('set_notification_preference', { p_channel: 'email', p_event: 'statement_ready', p_enabled: false })).error).toBeNull();

    // Too late in the month: a server first started on the 20th sends nothing about a month long past.
    expect(await queueStatementNotices(jobDeps(), new Date(Date.UTC(y!, m!, STATEMENT_NOTICE_DAYS + 1, 12)))).toBe(0);
    const told = await queueStatementNotices(jobDeps(), first);
    expect(told).toBe(2); // the owner and the quiet one: the others had no line
    expect(await queueStatementNotices(jobDeps(), first)).toBe(0);
    const subject = `Your NodeHarbor statement for ${statementMonthName(month)} is ready`;
    const mailsTo = async (to: string) =>
      (await s.deps.db.query<{ n: number }>('select count(*)::int as n from nodeharbor.outbox where to_address = $1 and subject = $2', [to, subject])).rows[0]!
        .n;
    expect(await mailsTo(owner.email)).toBe(1);
    expect(await mailsTo(quiet.email)).toBe(0);
    const nobody = await createTestUser(s);
    expect(await mailsTo(nobody.email)).toBe(0);
  });
});

describe('billing-statement rate limit', () => {
  let limited: TestServer;
  beforeAll(async () => {
    limited = await startTestServer({ RATE_LIMITS_ENABLED: 'true' });
  });
  afterAll(() => limited.stop());

  it('answers 60 downloads in ten minutes, then 429 with the wait in words', async () => {
    const user = await createTestUser(limited);
    const ask = () =>
      fetch(`${limited.url}/functions/v1/billing-statement`, {
        method: 'POST',
        headers: { apikey: limited.anonKey, Authorization: `Bearer ${user.token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ month: '2020-01', format: 'csv' }),
      });
    for (let i = 0; i < 60; i++) expect((await ask()).status).toBe(404);
    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: statementMessages.tooMany(10) });
  });
});

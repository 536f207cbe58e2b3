import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MailAttachment } from '../../src/server/mail/mailer';
import { captureAndCredit } from '../../src/server/payments/settle';
import { decideTestOrder } from '../../src/server/payments/test-provider';
import { invokeFunction } from '../helpers/functions';
import { runDueJobs } from '../helpers/jobs';
import { expectLedgerBalanced } from '../helpers/ledger';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { pdfText } from '../helpers/pdf-text';
import { messages } from '../../src/shared/validation';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';
import { startSmtp } from '../lifecycle/helpers';
import { purchase } from './helpers';
import { BURSTS } from './paypal-stand-in';

const SELLER_ENV = { BILLING_COMPANY_NAME: 'Harbor Test Ltd', BILLING_ADDRESS: '1 Quay Street\nPortsmouth PO1 1AA', BILLING_TAX_ID: 'GB123456789' };
const YEAR = new Date().getUTCFullYear();

/** A purchase through the built-in test provider, approved and captured as the return URL does. */
async function completedPurchase(s: TestServer, user: TestUser, amount: number): Promise<{ purchaseId: string; orderId: string }> {
  const { orderId, purchaseId } = await approvedOrder(user, s, amount);
  expect(await captureAndCredit(s.deps, orderId)).toBe('completed');
  return { purchaseId, orderId };
}

async function approvedOrder(user: TestUser, s: TestServer, amount: number) {
  const r = await purchase(user.client, { amount, credits_amount: amount });
  expect(r.status).toBe(200);
  const orderId = String(r.body.approval_url).split('/').at(-1)!;
  await decideTestOrder(s.deps.db, orderId, true);
  return { orderId, purchaseId: String(r.body.purchase_id) };
}

async function receiptOf(s: TestServer, purchaseId: string) {
  const { rows } = await s.deps.db.query<{ number: string; buyer_name: string | null; buyer_email: string; seller: unknown; amount: string }>(
    `select number, buyer_name, buyer_email, seller, amount from public.billing_documents where purchase_id = $1 and kind = 'receipt'`,
    [purchaseId],
  );
  return rows;
}

/** The billing-document function as a browser calls it, answered as bytes with its headers. */
async function download(s: TestServer, token: string | null, body: unknown) {
  const res = await fetch(`${s.url}/functions/v1/billing-document`, {
    method: 'POST',
    headers: { apikey: s.anonKey, Authorization: `Bearer ${token ?? s.anonKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const json = res.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(Buffer.from(bytes).toString()) as unknown) : undefined;
  return { status: res.status, headers: res.headers, bytes, json };
}

describe('receipts', () => {
  let s: TestServer;
  let ada: TestUser;
  let bob: TestUser;
  let admin: TestUser;
  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', ...BURSTS, ...SELLER_ENV });
    ada = await createTestUser(s, { fullName: 'Ada Lovelace' });
    bob = await createTestUser(s, { fullName: 'Bob Byte' });
    admin = await createTestUser(s, { admin: true });
  });
  afterEach(() => expectLedgerBalanced(s.deps.db));
  afterAll(() => s.stop());

  // 200 receipts, each drawn as a PDF: CPU work that passes running beside this one stretch.
  it('numbers 200 purchases completed at once NH-<year>-000001 to 000200, without gap or duplicate', { timeout: 120_000 }, async () => {
    const { rows: counter } = await s.deps.db.query(`select last_number from nodeharbor.document_counters where series = 'NH'`);
    expect(counter).toEqual([]); // a fresh database: this file's receipts are the first
    const buyers = await Promise.all(Array.from({ length: 10 }, () => createTestUser(s)));
    const orders: string[] = [];
    for (const buyer of buyers) {
      orders.push(...(await Promise.all(Array.from({ length: 20 }, (_, i) => approvedOrder(buyer, s, 1 + i)))).map((o) => o.orderId));
    }
    const settled = await Promise.all(orders.map((o) => captureAndCredit(s.deps, o)));
    expect(settled).toEqual(orders.map(() => 'completed'));

    const { rows } = await s.deps.db.query<{ number: string }>(
      `select d.number from public.billing_documents d join public.credit_purchases p on p.id = d.purchase_id
        where d.kind = 'receipt' and p.provider_order_id = any($1) order by d.number`,
      [orders],
    );
    expect(rows.map((r) => r.number)).toEqual(Array.from({ length: 200 }, (_, i) => `NH-${YEAR}-${String(i + 1).padStart(6, '0')}`));
    // Each buyer's mail carries the receipt of its own purchase.
    const { rows: mails } = await s.deps.db.query<{ key: string; attachments: MailAttachment[] }>(
      `select key, attachments from nodeharbor.outbox where key = any($1)`,
      [orders.map((o) => `payment-received:${o}`)],
    );
    expect(mails).toHaveLength(200);
    expect(new Set(mails.map((m) => m.attachments[0]!.filename)).size).toBe(200);

    // A second settlement of the same order (the webhook after the return URL) issues nothing more.
    expect(await captureAndCredit(s.deps, orders[0]!)).toBe('completed');
    const { rows: after } = await s.deps.db.query<{ n: number }>(`select count(*)::int as n from public.billing_documents where kind = 'receipt'`);
    expect(after[0]!.n).toBe(200);
  });

  it('copies the buyer and the BILLING_* seller into the receipt, and keeps them when the name changes', async () => {
    const { purchaseId } = await completedPurchase(s, ada, 12.5);
    const [receipt] = await receiptOf(s, purchaseId);
    expect(receipt).toMatchObject({
      number: expect.stringMatching(new RegExp(`^NH-${YEAR}-\\d{6}$`)) as string,
      buyer_name: 'Ada Lovelace',
      buyer_email: ada.email,
      amount: '12.50',
      seller: { name: 'Harbor Test Ltd', address: '1 Quay Street\nPortsmouth PO1 1AA', taxId: 'GB123456789' },
    });
    const { error } = await ada.client.from('profiles').update({ full_name: 'Ada King' }).eq('id', ada.id);
    expect(error).toBeNull();
    expect((await receiptOf(s, purchaseId))[0]!.buyer_name).toBe('Ada Lovelace');

    const got = await download(s, ada.token, { number: receipt!.number });
    const text = await pdfText(got.bytes);
    for (const part of [
      receipt!.number,
      '$12.50 USD',
      'Ada Lovelace',
      ada.email,
      'Harbor Test Ltd',
      '1 Quay Street',
      'Portsmouth PO1 1AA',
      'Tax ID: GB123456789',
      'Provider: Test provider — no money taken',
    ]) {
      expect(text).toContain(part);
    }
    expect(text).not.toContain('Ada King');
  });

  it('puts a name with line breaks on one line, so it cannot add lines of its own to a receipt', async () => {
    const { error } = await bob.client.from('profiles').update({ full_name: 'Bob Ltd\nVAT ID: DE123\r\n\tFor: Consulting' }).eq('id', bob.id);
    expect(error).toBeNull();
    const { purchaseId } = await completedPurchase(s, bob, 2);
    expect((await receiptOf(s, purchaseId))[0]!.buyer_name).toBe('Bob Ltd VAT ID: DE123 For: Consulting');
  });

  it('cannot be changed or deleted, not even by the table owner nor through the API', async () => {
    const { purchaseId } = await completedPurchase(s, bob, 3);
    const [receipt] = await receiptOf(s, purchaseId);
    await expect(s.deps.db.query(`update public.billing_documents set amount = 1 where number = $1`, [receipt!.number])).rejects.toThrow(
      'Receipts and credit notes cannot be changed',
    );
    await expect(s.deps.db.query(`delete from public.billing_documents where number = $1`, [receipt!.number])).rejects.toThrow(
      'Receipts and credit notes cannot be changed',
    );
    await expect(s.deps.db.query('truncate public.billing_documents')).rejects.toThrow('Receipts and credit notes cannot be changed');
    // Nor by the service role: only private.issue_document writes them.
    await expect(
      s.deps.db.transaction(async (tx) => {
        await tx.query('set local role service_role');
        await tx.query(
          `insert into public.billing_documents (number, kind, user_id, purchase_id, amount, provider, seller) values ('NH-1999-999999', 'receipt', $1, $2, 1, 'test', '{}')`,
          [bob.id, purchaseId],
        );
      }),
    ).rejects.toThrow(/permission denied/);
    const updated = await bob.client.from('billing_documents').update({ amount: 1 }).eq('number', receipt!.number).select();
    expect(updated.error).not.toBeNull();
    const deleted = await bob.client.from('billing_documents').delete().eq('number', receipt!.number).select();
    expect(deleted.error).not.toBeNull();
    expect(await receiptOf(s, purchaseId)).toEqual([receipt]);
  });

  it('lets a user read only their own documents', async () => {
    const mine = await completedPurchase(s, bob, 4);
    const [receipt] = await receiptOf(s, mine.purchaseId);
    const { data: bobs } = await bob.client.from('billing_documents').select('number, user_id');
    expect(bobs!.map((d) => d.user_id as string)).toEqual(bobs!.map(() => bob.id));
    expect(bobs!.map((d) => d.number as string)).toContain(receipt!.number);
    const { data: adas } = await ada.client.from('billing_documents').select('number').eq('number', receipt!.number);
    expect(adas).toEqual([]);
    const { data: visitors } = await s.client().from('billing_documents').select('number');
    expect(visitors).toEqual([]);
  });

  it('downloads a receipt as a PDF for its owner and for an admin, and for no one else', async () => {
    const { purchaseId } = await completedPurchase(s, ada, 25);
    const [receipt] = await receiptOf(s, purchaseId);
    const number = receipt!.number;

    const own = await download(s, ada.token, { number });
    expect(own.status).toBe(200);
    expect(Buffer.from(own.bytes.subarray(0, 5)).toString()).toBe('%PDF-');
    expect(own.headers.get('content-type')).toBe('application/pdf');
    expect(own.headers.get('content-disposition')).toBe(`attachment; filename="${number}.pdf"`);
    expect(own.headers.get('cache-control')).toBe('private, no-store');
    expect(await pdfText(own.bytes)).toContain('$25.00 USD');

    // Another user's answer is an unknown number's: nothing tells that the number exists.
    const foreign = await download(s, bob.token, { number });
    const unknown = await download(s, ada.token, { number: `NH-${YEAR}-999999` });
    expect(foreign).toMatchObject({ status: 404, json: { error: 'Document not found' } });
    expect(unknown).toMatchObject({ status: 404, json: { error: 'Document not found' } });

    const asAdmin = await download(s, admin.token, { number });
    expect(asAdmin.status).toBe(200);
    expect(await pdfText(asAdmin.bytes)).toContain(number);

    expect(await download(s, null, { number })).toMatchObject({ status: 401, json: { error: 'Authentication required' } });
    for (const bad of [{ number: 'NH-26-1' }, { number: 42 }, {}, { number: `NH-${YEAR}-${'1'.repeat(40)}` }]) {
      expect(await download(s, ada.token, bad)).toMatchObject({
        status: 400,
        json: { error: 'A document number looks like NH-2026-000123 or NH-CN-2026-000007' },
      });
    }

    // supabase-js, as the dashboard calls it, hands the PDF over as a Blob.
    const { data, error } = await ada.client.functions.invoke('billing-document', { body: { number } });
    expect(error).toBeNull();
    expect(data).toBeInstanceOf(Blob);
    expect((data as Blob).type).toBe('application/pdf');
  });

  it('issues and downloads a credit note that names the receipt it corrects', async () => {
    const { purchaseId } = await completedPurchase(s, ada, 20);
    const [receipt] = await receiptOf(s, purchaseId);
    const refunded = await invokeFunction(admin.client, 'refund-purchase', { purchase_id: purchaseId, amount: 5, reason: 'Asked for it' });
    expect(refunded.status).toBe(200);
    const note = String(refunded.body.credit_note);
    expect(note).toMatch(new RegExp(`^NH-CN-${YEAR}-\\d{6}$`));
    const got = await download(s, ada.token, { number: note });
    expect(got.status).toBe(200);
    expect(got.headers.get('content-disposition')).toBe(`attachment; filename="${note}.pdf"`);
    const text = await pdfText(got.bytes);
    for (const part of ['Credit note', note, `Corrects receipt ${receipt!.number}`, '$5.00 USD', 'Ada']) expect(text).toContain(part);
    const { data } = await ada.client.from('billing_documents').select('number, kind, receipt_number').eq('purchase_id', purchaseId).order('number');
    expect(data).toEqual([
      { number: receipt!.number, kind: 'receipt', receipt_number: null },
      { number: note, kind: 'credit_note', receipt_number: receipt!.number },
    ]);
  });

  it('gives a user with a second factor their documents only past it', async () => {
    const carol = await createTestUser(s);
    const { purchaseId } = await completedPurchase(s, carol, 6);
    const [receipt] = await receiptOf(s, purchaseId);
    await verifyNewFactor(carol);
    const aal1 = await signInAal1(s, carol);
    const token = (await aal1.auth.getSession()).data.session!.access_token;
    expect(await download(s, token, { number: receipt!.number })).toMatchObject({ status: 403, json: { error: messages.secondFactorRequired } });
    expect((await aal1.from('billing_documents').select('number')).data).toEqual([]);
    const { data } = await carol.client.from('billing_documents').select('number');
    expect(data).toEqual([{ number: receipt!.number }]);
    expect((await download(s, (await carol.client.auth.getSession()).data.session!.access_token, { number: receipt!.number })).status).toBe(200);
  });

  it('attaches the receipt to the "payment received" mail in the outbox', async () => {
    const { purchaseId, orderId } = await completedPurchase(s, bob, 7);
    const [receipt] = await receiptOf(s, purchaseId);
    const { rows } = await s.deps.db.query<{ text_body: string; attachments: MailAttachment[] }>(
      'select text_body, attachments from nodeharbor.outbox where key = $1',
      [`payment-received:${orderId}`],
    );
    expect(rows[0]!.text_body).toContain(`Receipt ${receipt!.number} is attached`);
    // The outbox keeps the receipt's number: its PDF is drawn when the mail is sent, not in the payment's request.
    expect(rows[0]!.attachments).toEqual([{ filename: `${receipt!.number}.pdf`, contentType: 'application/pdf', document: receipt!.number }]);
    // The admin's outbox names the file, without its content.
    const { data } = await admin.client.rpc('admin_mail_outbox', { p_to: bob.email });
    expect(
      (data as { subject: string; attachment_names: string[] | null }[]).find((m) => m.subject === '[TEST] We received your payment of $7.00'),
    ).toMatchObject({
      attachment_names: [`${receipt!.number}.pdf`],
    });
  });
});

describe('receipts through a mail relay', () => {
  it('relays the "payment received" mail with the receipt PDF attached', async () => {
    const smtp = await startSmtp();
    const s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', SMTP_URL: smtp.url });
    try {
      const user = await createTestUser(s);
      const { purchaseId } = await completedPurchase(s, user, 9);
      const [receipt] = await receiptOf(s, purchaseId);
      await runDueJobs(s);
      const mail = smtp.mails.find((m) => m.to.includes(user.email));
      expect(mail?.subject).toBe('[TEST] We received your payment of $9.00');
      expect(mail!.raw).toMatch(new RegExp(`Content-Type: application/pdf; name="?${receipt!.number}\\.pdf"?`));
      expect(mail!.raw).toMatch(new RegExp(`Content-Disposition: attachment; filename="?${receipt!.number}\\.pdf"?`));
      // The PDF drawn by the send, with the receipt's number and amount.
      const { rows } = await s.deps.db.query<{ status: string }>(`select status from nodeharbor.outbox where to_address = $1`, [user.email]);
      expect(rows[0]!.status).toBe('sent');
      const base64 = /Content-Disposition: attachment[^]*?\r?\n\r?\n([A-Za-z0-9+/=\r\n]+)/.exec(mail!.raw)![1]!.replace(/\r?\n/g, '');
      const text = await pdfText(Buffer.from(base64, 'base64'));
      expect(text).toContain(receipt!.number);
      expect(text).toContain('$9.00 USD');
      await expectLedgerBalanced(s.deps.db);
    } finally {
      await s.stop();
      await smtp.stop();
    }
  });
});

describe('billing-document rate limit', () => {
  it('answers 429 after 120 downloads in 10 minutes', async () => {
    const s = await startTestServer();
    try {
      const user = await createTestUser(s);
      for (let i = 0; i < 120; i++) expect((await download(s, user.token, { number: `NH-${YEAR}-000001` })).status).toBe(404);
      const limited = await download(s, user.token, { number: `NH-${YEAR}-000001` });
      expect(limited.status).toBe(429);
      expect(limited.json).toEqual({ error: expect.stringMatching(/^Too many downloads\. Please try again in \d+ minutes\.$/) as string });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      await s.stop();
    }
  });
});

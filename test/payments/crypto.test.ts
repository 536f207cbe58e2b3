import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconcilePendingPurchases } from '../../src/server/payments/reconcile';
import { cryptoMessages } from '../../src/shared/crypto-payments';
import { messages, refundTooMuchMessage } from '../../src/shared/validation';
import { invokeFunction } from '../helpers/functions';
import { expectLedgerBalanced } from '../helpers/ledger';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';
import { balance, purchase, purchaseRow, visit } from './helpers';
import { nowPaymentsServerEnv, startNowPaymentsStandIn, type NowPaymentsStandIn } from './nowpayments-stand-in';

// Issue 38, item 1: top-ups in crypto through NOWPayments' hosted invoices (decision 050), against a
// local stand-in that speaks its API and signs its callbacks as its documentation says.

let np: NowPaymentsStandIn;
let s: TestServer;
let admin: TestUser;
beforeAll(async () => {
  np = await startNowPaymentsStandIn();
  s = await startTestServer(nowPaymentsServerEnv(np));
  admin = await createTestUser(s, { admin: true });
});
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(async () => {
  await s.stop();
  await np.stop();
});

/** A crypto top-up started as the Billing page starts it: the purchase, and the stand-in's invoice. */
async function invoiceFor(user: TestUser, amount: number): Promise<{ purchaseId: string; invoiceId: number; url: string }> {
  const r = await purchase(user.client, { amount, credits_amount: amount, user_id: user.id, method: 'crypto' });
  expect(r.status).toBe(200);
  const purchaseId = String(r.body.purchase_id);
  const invoiceId = Number((await purchaseRow(s, purchaseId))!.provider_order_id);
  return { purchaseId, invoiceId, url: String(r.body.approval_url) };
}

async function purchaseOf(id: string) {
  const { rows } = await s.deps.db.query<{ status: string; provider: string; credited: string | null; note: string | null }>(
    'select status, provider, credited, note from public.credit_purchases where id = $1',
    [id],
  );
  return rows[0]!;
}
const credits = async (userId: string) =>
  (
    await s.deps.db.query<{ amount: string; description: string }>(
      `select amount, description from public.credit_transactions where user_id = $1 and type = 'purchase' order by created_at`,
      [userId],
    )
  ).rows;
const receipts = async (purchaseId: string) =>
  (
    await s.deps.db.query<{ number: string; amount: string }>(
      `select number, amount from public.billing_documents where purchase_id = $1 and kind = 'receipt'`,
      [purchaseId],
    )
  ).rows;

describe('a crypto top-up', () => {
  it('opens an invoice on the processor for the amount in USD, and sends the buyer to its hosted page alone', async () => {
    const user = await createTestUser(s);
    const { purchaseId, invoiceId, url } = await invoiceFor(user, 10);
    expect(url).toBe(`${np.origin}/payment/?iid=${invoiceId}`);
    expect(np.invoices.get(invoiceId)).toMatchObject({
      order_id: purchaseId,
      price_amount: 10,
      price_currency: 'usd',
      ipn_callback_url: `${s.url}/payments/webhook/nowpayments`,
      success_url: `${s.url}/payments/crypto/return?purchase=${purchaseId}`,
    });
    expect(await purchaseOf(purchaseId)).toMatchObject({ status: 'pending', provider: 'nowpayments' });
    // The Billing page offers it because the server says so.
    expect(await (await fetch(`${s.url}/config.json`)).json()).toMatchObject({ cryptoPayments: true });
  });

  it('paid: credited once at the final state, with a receipt; the callback again, five at once, books nothing more', async () => {
    const user = await createTestUser(s);
    const { purchaseId, invoiceId } = await invoiceFor(user, 10);
    // Seen on chain, not yet final: nothing is booked.
    await np.pay(invoiceId, { status: 'confirming' });
    expect((await purchaseOf(purchaseId)).status).toBe('pending');
    const cb = await np.pay(invoiceId);
    expect(await purchaseOf(purchaseId)).toMatchObject({ status: 'completed', credited: '10.00', note: null });
    expect(await credits(user.id)).toEqual([{ amount: '10.00', description: 'Credit purchase in crypto (NOWPayments)' }]);
    expect(await receipts(purchaseId)).toEqual([{ number: expect.stringMatching(/^NH-\d{4}-\d{6}$/), amount: '10.00' }]);
    expect(await Promise.all(Array.from({ length: 5 }, () => np.deliver(cb)))).toEqual([200, 200, 200, 200, 200]);
    expect(await credits(user.id)).toHaveLength(1);
    expect(await balance(user.client)).toBe('10');
  });

  it('refuses a forged callback with 401 and books nothing: a wrong signature, a body changed after signing, or none', async () => {
    const user = await createTestUser(s);
    const { purchaseId, invoiceId } = await invoiceFor(user, 20);
    const cb = await np.pay(invoiceId, { deliver: false });
    const changed = { ...cb, body: cb.body.replace('"actually_paid":10', '"actually_paid":1000') };
    expect(changed.body).not.toBe(cb.body);
    const forged = [
      { ...cb, headers: { ...cb.headers, 'x-nowpayments-sig': 'ab'.repeat(64) } },
      changed,
      { ...cb, headers: { 'content-type': 'application/json' } },
      { ...cb, body: 'not json' },
    ];
    for (const f of forged) expect(await np.deliver(f)).toBe(401);
    expect((await purchaseOf(purchaseId)).status).toBe('pending');
    expect(await credits(user.id)).toEqual([]);
  });

  it('underpaid: credits what arrived at the invoice rate, with a note; overpaid: credits it all, with a note', async () => {
    const user = await createTestUser(s);
    const under = await invoiceFor(user, 10);
    await np.pay(under.invoiceId, { fraction: 0.75, status: 'partially_paid' });
    expect(await purchaseOf(under.purchaseId)).toMatchObject({ status: 'completed', credited: '7.50', note: cryptoMessages.underpaid(7.5, 10) });
    expect(await receipts(under.purchaseId)).toEqual([{ number: expect.any(String), amount: '7.50' }]);
    const over = await invoiceFor(user, 10);
    await np.pay(over.invoiceId, { fraction: 1.2 });
    expect(await purchaseOf(over.purchaseId)).toMatchObject({ status: 'completed', credited: '12.00', note: cryptoMessages.overpaid(12, 10) });
    expect(await balance(user.client)).toBe('19.5');
  });

  it('expired, then paid: the purchase expires, and is credited when the late payment is confirmed, with a note', async () => {
    const user = await createTestUser(s);
    const { purchaseId, invoiceId } = await invoiceFor(user, 15);
    await np.pay(invoiceId, { fraction: 0, status: 'expired' });
    expect((await purchaseOf(purchaseId)).status).toBe('expired');
    await np.pay(invoiceId, { status: 'confirmed' });
    expect(await purchaseOf(purchaseId)).toMatchObject({ status: 'completed', credited: '15.00', note: cryptoMessages.late });
    expect(await credits(user.id)).toHaveLength(1);
  });

  it('a callback lost on the way: the reconciliation sweep asks the processor and credits it once', async () => {
    const user = await createTestUser(s);
    const { purchaseId, invoiceId } = await invoiceFor(user, 12);
    await np.pay(invoiceId, { deliver: false });
    const listed = np.calls.list;
    await reconcilePendingPurchases(s.deps, { minAgeMs: 0 });
    expect(np.calls.list).toBeGreaterThan(listed);
    expect(await purchaseOf(purchaseId)).toMatchObject({ status: 'completed', credited: '12.00' });
    await reconcilePendingPurchases(s.deps, { minAgeMs: 0 });
    expect(await credits(user.id)).toHaveLength(1);
  });

  it('the buyer back from the invoice: a paid one says success, one still on chain says pending', async () => {
    const user = await createTestUser(s);
    const paid = await invoiceFor(user, 5);
    await np.pay(paid.invoiceId, { deliver: false });
    const back = await visit(`${s.url}/payments/crypto/return?purchase=${paid.purchaseId}`);
    expect(back.location).toBe(`/dashboard/billing?payment=success&purchase=${paid.purchaseId}`);
    expect((await purchaseOf(paid.purchaseId)).status).toBe('completed');
    const waiting = await invoiceFor(user, 5);
    await np.pay(waiting.invoiceId, { status: 'confirming', deliver: false });
    expect((await visit(`${s.url}/payments/crypto/return?purchase=${waiting.purchaseId}`)).location).toBe('/dashboard/billing?payment=pending');
    expect((await visit(`${s.url}/payments/crypto/return?purchase=${waiting.purchaseId}&cancelled=1`)).location).toBe('/dashboard/billing?payment=cancelled');
    expect((await purchaseOf(waiting.purchaseId)).status).toBe('pending');
  });

  it('100 callbacks at once for 50 invoices: 50 credits, with receipts numbered without a gap', { timeout: 120_000 }, async () => {
    const buyers = await Promise.all(Array.from({ length: 10 }, () => createTestUser(s)));
    const invoices = (await Promise.all(buyers.flatMap((b) => Array.from({ length: 5 }, (_, i) => invoiceFor(b, 2 + i))))).map((x) => x);
    const callbacks = await Promise.all(invoices.map((i) => np.pay(i.invoiceId, { deliver: false })));
    const answers = await Promise.all([...callbacks, ...callbacks].map((cb) => np.deliver(cb)));
    expect(answers.filter((a) => a === 200)).toHaveLength(100);
    const numbers = (await Promise.all(invoices.map((i) => receipts(i.purchaseId)))).map((r) => {
      expect(r).toHaveLength(1);
      return Number(r[0]!.number.split('-').at(-1));
    });
    numbers.sort((a, b) => a - b);
    expect(numbers.at(-1)! - numbers[0]!).toBe(49);
    for (const b of buyers) expect(await credits(b.id)).toHaveLength(5);
  });

  it('an admin refund of a crypto top-up is booked as made outside, with its credit note; the processor is not asked', async () => {
    const user = await createTestUser(s);
    const { purchaseId, invoiceId } = await invoiceFor(user, 10);
    await np.pay(invoiceId);
    const calls = { ...np.calls };
    const done = await invokeFunction(admin.client, 'refund-purchase', { purchase_id: purchaseId, amount: 4 });
    expect(done).toMatchObject({ status: 200, body: { status: 'completed', credit_note: expect.stringMatching(/^NH-CN-\d{4}-\d{6}$/) } });
    expect(np.calls).toEqual(calls);
    expect(await balance(user.client)).toBe('6');
  });

  it('refunds at most what an underpaid top-up credited', async () => {
    const user = await createTestUser(s);
    const { purchaseId, invoiceId } = await invoiceFor(user, 10);
    await np.pay(invoiceId, { fraction: 0.5, status: 'partially_paid' });
    const tooMuch = await invokeFunction(admin.client, 'refund-purchase', { purchase_id: purchaseId, amount: 6 });
    expect(tooMuch).toMatchObject({ status: 409, body: { error: refundTooMuchMessage(5) } });
    expect(await balance(user.client)).toBe('5');
    expect(await invokeFunction(admin.client, 'refund-purchase', { purchase_id: purchaseId, amount: 5 })).toMatchObject({ status: 200 });
    expect(await balance(user.client)).toBe('0');
  });

  it('refuses a method it does not know, and crypto where it is not configured', async () => {
    const user = await createTestUser(s);
    const r = await purchase(user.client, { amount: 5, credits_amount: 5, method: 'bitcoin' });
    expect(r).toMatchObject({ status: 400, body: { error: messages.unknownPaymentMethod } });
    const plain = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
    try {
      const other = await createTestUser(plain);
      const refused = await purchase(other.client, { amount: 5, credits_amount: 5, method: 'crypto' });
      expect(refused).toMatchObject({ status: 400, body: { error: cryptoMessages.notAvailable } });
      const callback = await fetch(`${plain.url}/payments/webhook/nowpayments`, { method: 'POST', body: '{}' });
      expect(callback.status).toBe(404);
    } finally {
      await plain.stop();
    }
  });

  it('sends the buyer nowhere but the checkout it was told of: an invoice on another origin fails the payment, and nothing is paid', async () => {
    const elsewhere = await startTestServer({ ...nowPaymentsServerEnv(np), NOWPAYMENTS_CHECKOUT_ORIGIN: 'https://nowpayments.io' });
    try {
      const user = await createTestUser(elsewhere);
      const r = await purchase(user.client, { amount: 5, credits_amount: 5, method: 'crypto' });
      expect(r).toMatchObject({ status: 502, body: { error: 'Failed to initiate payment' } });
      const { rows } = await elsewhere.deps.db.query<{ status: string }>('select status from public.credit_purchases where user_id = $1', [user.id]);
      expect(rows).toEqual([{ status: 'rejected' }]);
    } finally {
      await elsewhere.stop();
    }
  });
});

import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reconcilePendingPurchases } from '../../src/server/payments/reconcile';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';
import { paymentMismatchParagraphs } from '../../src/shared/payment-mismatch';
import { age, balance, deliverAtOnce, mismatchAlerts, mismatchAudit, purchase, purchaseLedger, purchaseRow, visit } from './helpers';
import { payPalServerEnv, startPayPalStandIn, type PayPalStandIn } from './paypal-stand-in';
import { expectLedgerBalanced } from '../helpers/ledger';

describe('purchase-credits through PayPal (local stand-in)', () => {
  let paypal: PayPalStandIn;
  let s: TestServer;
  const logLines: string[] = [];
  beforeAll(async () => {
    paypal = await startPayPalStandIn();
    s = await startTestServer(payPalServerEnv(paypal), { logLines });
  });
  afterEach(async () => {
    paypal.fail = { capture: 'none', orders: 'none', webhookSignature: 'valid', refund: 'none' };
    paypal.answer = { capture: null, refund: null };
    await expectLedgerBalanced(s.deps.db);
  });
  afterAll(async () => {
    await s.stop();
    await paypal.close();
  });

  /** A signed-in user who has started a purchase: the order exists at PayPal, awaiting approval. */
  async function started(amount: number): Promise<{ user: TestUser; purchaseId: string; orderId: string; approvalUrl: string }> {
    const user = await createTestUser(s);
    const r = await purchase(user.client, { amount, credits_amount: amount, user_id: user.id });
    expect(r.status).toBe(200);
    const purchaseId = r.body.purchase_id as string;
    const orderId = (await purchaseRow(s, purchaseId))!.provider_order_id!;
    return { user, purchaseId, orderId, approvalUrl: r.body.approval_url as string };
  }

  function deliver(d: { headers: Record<string, string>; body: string }) {
    return fetch(`${s.url}/payments/webhook/paypal`, { method: 'POST', headers: d.headers, body: d.body });
  }

  it('creates the order, sends the buyer to PayPal, and captures on the return URL', async () => {
    const { user, purchaseId, orderId, approvalUrl } = await started(25);
    expect(approvalUrl).toBe(`https://www.sandbox.paypal.com/checkoutnow?token=${orderId}`);
    const order = paypal.orders.get(orderId)!;
    expect(order).toMatchObject({ value: '25.00', purchaseId, returnUrl: `${s.url}/payments/return?purchase=${purchaseId}` });
    expect(order.cancelUrl).toBe(`${order.returnUrl}&cancelled=1`);

    const back = await visit(paypal.approve(orderId));
    expect(back).toMatchObject({ status: 303, location: `/dashboard/billing?payment=success&purchase=${purchaseId}` });
    expect(await balance(user.client)).toBe('25');
    expect(await purchaseLedger(s, user.id)).toEqual([{ amount: '25.00', description: 'Credit purchase via PayPal', idempotency_key: orderId }]);
    expect((await purchaseRow(s, purchaseId))!.status).toBe('completed');
    expect(order.status).toBe('COMPLETED');
  });

  it('200 concurrent deliveries of one verified webhook and the return URL credit exactly once', async () => {
    const { user, purchaseId, orderId } = await started(10);
    const returnUrl = paypal.approve(orderId);
    const delivery = paypal.delivery('CHECKOUT.ORDER.APPROVED', orderId);
    const capturesBefore = paypal.calls.captured;
    const [back, answers] = await Promise.all([visit(returnUrl), deliverAtOnce(() => deliver(delivery), 200)]);
    expect(back.location).toBe(`/dashboard/billing?payment=success&purchase=${purchaseId}`);
    expect(
      answers,
      logLines
        .filter((l) => l.includes('webhook'))
        .slice(0, 3)
        .join('\n'),
    ).toEqual(Array<number>(200).fill(200));
    expect(paypal.calls.captured - capturesBefore).toBe(1);

    // And PayPal's capture notifications, also delivered many times over.
    const captured = paypal.delivery('PAYMENT.CAPTURE.COMPLETED', orderId);
    expect(await deliverAtOnce(() => deliver(captured), 50)).toEqual(Array<number>(50).fill(200));

    expect(await balance(user.client)).toBe('10');
    expect(await purchaseLedger(s, user.id)).toHaveLength(1);
    expect((await purchaseRow(s, purchaseId))!.status).toBe('completed');
    const { rows } = await s.deps.db.query<{ n: number }>('select count(*)::int as n from nodeharbor.outbox where to_address = $1', [user.email]);
    expect(rows[0]!.n).toBe(1);
  });

  it('a verified capture notification alone credits the purchase', async () => {
    const { user, purchaseId, orderId } = await started(4);
    paypal.approve(orderId);
    // PayPal captured it (e.g. after a pending review): the webhook is the only news.
    const o = paypal.orders.get(orderId)!;
    o.status = 'COMPLETED';
    o.captureId = 'CAPTUREDELSEWHERE';
    expect((await deliver(paypal.delivery('PAYMENT.CAPTURE.COMPLETED', orderId))).status).toBe(200);
    expect(await balance(user.client)).toBe('4');
    expect((await purchaseRow(s, purchaseId))!.status).toBe('completed');
  });

  it('an unverified webhook is 400 and changes nothing', async () => {
    const { user, purchaseId, orderId } = await started(10);
    paypal.approve(orderId);
    const forged = await deliver(paypal.delivery('CHECKOUT.ORDER.APPROVED', orderId, { forged: true }));
    expect(forged.status).toBe(400);
    paypal.fail.webhookSignature = 'invalid';
    expect((await deliver(paypal.delivery('PAYMENT.CAPTURE.COMPLETED', orderId))).status).toBe(400);
    const bare = await fetch(`${s.url}/payments/webhook/paypal`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: paypal.delivery('PAYMENT.CAPTURE.COMPLETED', orderId).body,
    });
    expect(bare.status).toBe(400);
    expect(paypal.orders.get(orderId)!.status).toBe('APPROVED');
    expect((await purchaseRow(s, purchaseId))!.status).toBe('pending');
    expect(await balance(user.client)).toBe('0');
    expect(await purchaseLedger(s, user.id)).toEqual([]);
  });

  it('acknowledges but never captures an approved order that is not ours', async () => {
    paypal.orders.set('FOREIGNORDER0001', {
      id: 'FOREIGNORDER0001',
      status: 'APPROVED',
      value: '99.00',
      purchaseId: 'someone-else',
      returnUrl: 'https://shop.example/r',
      cancelUrl: 'https://shop.example/c',
    });
    expect((await deliver(paypal.delivery('CHECKOUT.ORDER.APPROVED', 'FOREIGNORDER0001'))).status).toBe(200);
    expect(paypal.orders.get('FOREIGNORDER0001')!.status).toBe('APPROVED');
  });

  it('a declined capture credits nothing, rejects the purchase and says so on the redirect', async () => {
    const { user, purchaseId, orderId } = await started(10);
    paypal.fail.capture = 'declined';
    expect(await visit(paypal.approve(orderId))).toMatchObject({ status: 303, location: '/dashboard/billing?payment=failed' });
    expect((await purchaseRow(s, purchaseId))!.status).toBe('rejected');
    expect(await balance(user.client)).toBe('0');
    expect(await purchaseLedger(s, user.id)).toEqual([]);
  });

  it('a denied capture notification rejects the purchase', async () => {
    const { purchaseId, orderId } = await started(10);
    expect((await deliver(paypal.delivery('PAYMENT.CAPTURE.DENIED', orderId))).status).toBe(200);
    expect((await purchaseRow(s, purchaseId))!.status).toBe('rejected');
  });

  it('cancelling on PayPal comes back as cancelled and rejects the purchase', async () => {
    const { user, purchaseId, orderId } = await started(10);
    expect(await visit(paypal.cancel(orderId))).toMatchObject({ status: 303, location: '/dashboard/billing?payment=cancelled' });
    expect((await purchaseRow(s, purchaseId))!.status).toBe('rejected');
    expect(await balance(user.client)).toBe('0');
  });

  it('a cancel after approving in another tab is a payment, not a cancellation', async () => {
    const { user, purchaseId, orderId } = await started(6);
    paypal.approve(orderId);
    expect(await visit(paypal.cancel(orderId))).toMatchObject({ status: 303, location: `/dashboard/billing?payment=success&purchase=${purchaseId}` });
    expect((await purchaseRow(s, purchaseId))!.status).toBe('completed');
    expect(await balance(user.client)).toBe('6');
  });

  it.each<['5xx' | 'timeout']>([['5xx'], ['timeout']])(
    'PayPal %s on capture: the return URL answers failed, reconciliation completes it once PayPal answers',
    async (failure) => {
      const { user, purchaseId, orderId } = await started(15);
      paypal.fail.capture = failure;
      const returnUrl = paypal.approve(orderId);
      expect(await visit(returnUrl)).toMatchObject({ status: 303, location: '/dashboard/billing?payment=failed' });
      expect((await purchaseRow(s, purchaseId))!.status).toBe('pending');

      // Still failing: reconciliation leaves it pending and tries again next time.
      await age(s, purchaseId, 31);
      expect((await reconcilePendingPurchases(s.deps)).unreachable).toBeGreaterThanOrEqual(1);
      expect((await purchaseRow(s, purchaseId))!.status).toBe('pending');

      paypal.fail.capture = 'none';
      await reconcilePendingPurchases(s.deps);
      expect((await purchaseRow(s, purchaseId))!.status).toBe('completed');
      expect(await balance(user.client)).toBe('15');
      await reconcilePendingPurchases(s.deps);
      expect(await visit(returnUrl)).toMatchObject({ location: `/dashboard/billing?payment=success&purchase=${purchaseId}` });
      expect(await purchaseLedger(s, user.id)).toHaveLength(1);
    },
  );

  it('reconciliation credits an approved order without the browser, and leaves unapproved ones', async () => {
    const paid = await started(9);
    paypal.approve(paid.orderId);
    const waiting = await started(6);
    await age(s, paid.purchaseId, 40);
    await age(s, waiting.purchaseId, 40);
    await reconcilePendingPurchases(s.deps);
    expect((await purchaseRow(s, paid.purchaseId))!.status).toBe('completed');
    expect(await balance(paid.user.client)).toBe('9');
    expect((await purchaseRow(s, waiting.purchaseId))!.status).toBe('pending');
    expect(await balance(waiting.user.client)).toBe('0');
  });

  it('reconciliation keeps retrying a lasting refusal for 48 hours, then expires the purchase', async () => {
    const { user, purchaseId, orderId } = await started(11);
    paypal.approve(orderId);
    paypal.fail.capture = 'refused';
    await age(s, purchaseId, 3600);
    await reconcilePendingPurchases(s.deps);
    expect((await purchaseRow(s, purchaseId))!.status).toBe('pending');
    await age(s, purchaseId, 48 * 3600 + 1);
    await reconcilePendingPurchases(s.deps);
    expect((await purchaseRow(s, purchaseId))!.status).toBe('expired');
    expect(await balance(user.client)).toBe('0');
  });

  it('when PayPal cannot create the order: 502 "Failed to initiate payment", nothing left pending', async () => {
    const user = await createTestUser(s);
    for (const failure of ['5xx', 'timeout'] as const) {
      paypal.fail.orders = failure;
      expect(await purchase(user.client, { amount: 10, credits_amount: 10 })).toEqual({ status: 502, body: { error: 'Failed to initiate payment' } });
    }
    const { rows } = await s.deps.db.query<{ status: string }>('select status from public.credit_purchases where user_id = $1', [user.id]);
    expect(rows).toEqual([{ status: 'rejected' }, { status: 'rejected' }]);
  });

  it('reuses one access token, and renews it once when PayPal no longer accepts it', async () => {
    const tokensBefore = paypal.calls.token;
    await started(2);
    await started(2);
    expect(paypal.calls.token).toBe(tokensBefore);
    paypal.revokeTokens();
    const { orderId } = await started(2);
    expect(paypal.calls.token).toBe(tokensBefore + 1);
    expect(paypal.orders.has(orderId)).toBe(true);
  });

  // Issue 42, item 2: what PayPal captured is compared with the order, currency and amount, exactly.
  describe('a capture that does not match its order', () => {
    let admin: TestUser;
    beforeAll(async () => {
      admin = await createTestUser(s, { admin: true });
    });
    const receipts = async (userId: string) => (await s.deps.db.query('select number from public.billing_documents where user_id = $1', [userId])).rows;

    it('a JPY 9 capture of a $9.00 order credits nothing, rejects the purchase, is audited once and alerts the admins once', async () => {
      const { user, purchaseId, orderId } = await started(9);
      // PayPal writes yen without decimals (its money object's value); read as dollars it was $9.00.
      paypal.answer.capture = { currency_code: 'JPY', value: '9' };
      expect(await visit(paypal.approve(orderId))).toMatchObject({ status: 303, location: '/dashboard/billing?payment=failed' });
      const captureId = paypal.orders.get(orderId)!.captureId!;
      expect(paypal.orders.get(orderId)!.status).toBe('COMPLETED');

      expect((await purchaseRow(s, purchaseId))!.status).toBe('rejected');
      // Rejected, and why: what PayPal took, kept on the purchase.
      expect((await s.deps.db.query('select mismatch from public.credit_purchases where id = $1', [purchaseId])).rows).toEqual([{ mismatch: 'JPY 9' }]);
      expect(await balance(user.client)).toBe('0');
      expect(await purchaseLedger(s, user.id)).toEqual([]);
      expect(await receipts(user.id)).toEqual([]);
      const audit = await mismatchAudit(s, user.id);
      expect(audit).toEqual([
        {
          actor: 'server',
          target_label: user.email,
          before: { purchase_id: purchaseId, order_id: orderId, expectation: 'exactly', expected: 'USD 9.00' },
          after: { what: 'capture', reference: captureId, reported: 'JPY 9' },
        },
      ]);
      const alerts = await mismatchAlerts(s, admin.email, captureId);
      expect(alerts.map((a) => a.text_body)).toEqual([
        paymentMismatchParagraphs({
          what: 'capture',
          reference: captureId,
          order_id: orderId,
          user_email: user.email,
          reported: 'JPY 9',
          expectation: 'exactly',
          expected: 'USD 9.00',
        }).join('\n\n'),
      ]);

      // PayPal's capture notification, many times over, the return URL again and reconciliation: still nothing.
      const captured = paypal.delivery('PAYMENT.CAPTURE.COMPLETED', orderId);
      expect(await deliverAtOnce(() => deliver(captured), 20)).toEqual(Array<number>(20).fill(200));
      await visit(paypal.approve(orderId));
      await age(s, purchaseId, 40);
      await reconcilePendingPurchases(s.deps);
      // Nor does a later report of the right amount make that capture right.
      delete paypal.orders.get(orderId)!.captured;
      expect((await deliver(paypal.delivery('PAYMENT.CAPTURE.COMPLETED', orderId))).status).toBe(200);
      expect((await purchaseRow(s, purchaseId))!.status).toBe('rejected');
      expect(await balance(user.client)).toBe('0');
      expect(await purchaseLedger(s, user.id)).toEqual([]);
      expect(await mismatchAudit(s, user.id)).toHaveLength(1);
      expect(await mismatchAlerts(s, admin.email, captureId)).toHaveLength(1);
    });

    it.each<{ value: string; off: string; path: 'return URL' | 'webhook' }>([
      { value: '9.01', off: 'one cent more', path: 'webhook' },
      { value: '8.99', off: 'one cent less', path: 'return URL' },
      { value: '9.001', off: 'a tenth of a cent more', path: 'webhook' },
    ])('a capture of USD $value for a USD 9.00 order ($off, by the $path) credits nothing, is audited and alerts the admins', async ({ value, path }) => {
      const { user, purchaseId, orderId } = await started(9);
      if (path === 'return URL') {
        paypal.answer.capture = { currency_code: 'USD', value };
        expect(await visit(paypal.approve(orderId))).toMatchObject({ status: 303, location: '/dashboard/billing?payment=failed' });
      } else {
        // Captured at PayPal (say after a review): its notification is the only news.
        paypal.approve(orderId);
        const o = paypal.orders.get(orderId)!;
        o.status = 'COMPLETED';
        o.captureId = `CAPTURE${value.replace('.', '')}${purchaseId.slice(0, 6)}`.toUpperCase();
        o.captured = { currency_code: 'USD', value };
        expect((await deliver(paypal.delivery('PAYMENT.CAPTURE.COMPLETED', orderId))).status).toBe(200);
      }
      const captureId = paypal.orders.get(orderId)!.captureId!;
      expect((await purchaseRow(s, purchaseId))!.status).toBe('rejected');
      expect(await balance(user.client)).toBe('0');
      expect(await purchaseLedger(s, user.id)).toEqual([]);
      expect(await receipts(user.id)).toEqual([]);
      expect((await mismatchAudit(s, user.id)).map((a) => a.after)).toEqual([{ what: 'capture', reference: captureId, reported: `USD ${value}` }]);
      expect(await mismatchAlerts(s, admin.email, captureId)).toHaveLength(1);
    });

    it('reads an amount as dollars only when it is written as PayPal writes dollars', async () => {
      const read = async (currency: string | null, value: string | null) =>
        (await s.deps.db.query<{ d: string | null }>('select private.provider_dollars($1, $2)::text as d', [currency, value])).rows[0]!.d;
      expect(await read('USD', '19.99')).toBe('19.99');
      expect(await read('USD', '10')).toBe('10');
      expect(await read('USD', '10.5')).toBe('10.5');
      for (const [currency, value] of [
        ['JPY', '9'],
        ['usd', '9.00'],
        ['USD', ''],
        ['USD', '-1.00'],
        ['USD', '1.234'],
        ['USD', '1e3'],
        ['USD', ' 1.00'],
        ['USD', '12345678901'],
        [null, '9.00'],
        ['USD', null],
      ] as const)
        expect(await read(currency, value), `${currency} ${value}`).toBeNull();
    });
  });

  it('keeps credentials and tokens out of the logs', () => {
    const all = logLines.join('\n');
    expect(all).toContain('paypal');
    expect(all).not.toContain(paypal.clientSecret);
    expect(all).not.toMatch(/A21AA[0-9a-f]{10}/);
  });
});

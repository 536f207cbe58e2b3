import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { messages, refundTooMuchMessage } from '../../src/shared/validation';
import { invokeFunction } from '../helpers/functions';
import { expectLedgerBalanced } from '../helpers/ledger';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';
import { paymentMismatchParagraphs } from '../../src/shared/payment-mismatch';
import { balance, deliverAtOnce, mismatchAlerts, mismatchAudit, paidWithTestProvider, purchase, purchaseRow, visit } from './helpers';
import { payPalServerEnv, startPayPalStandIn, type PayPalStandIn } from './paypal-stand-in';

// Issue 20, item 3: refunds an admin makes through the provider, and PayPal's own refunds and
// reversals, each booked once in the ledger with a credit note, whatever arrives twice or at once.

describe('refunds and reversals through PayPal (local stand-in)', () => {
  let paypal: PayPalStandIn;
  let s: TestServer;
  let admin: TestUser;
  beforeAll(async () => {
    paypal = await startPayPalStandIn();
    // No test here waits for PayPal's silence, and the stand-in answers from this same process,
    // which bursts of 100 webhooks keep busy: its answers may take longer than the 2 s the other tests allow.
    s = await startTestServer({ ...payPalServerEnv(paypal), PAYPAL_TIMEOUT_MS: '30000' });
    admin = await createTestUser(s, { admin: true });
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

  /** A user whose PayPal purchase of `amount` is completed: credited, with its receipt. */
  async function paid(amount: number): Promise<{ user: TestUser; purchaseId: string; orderId: string }> {
    const user = await createTestUser(s);
    const r = await purchase(user.client, { amount, credits_amount: amount, user_id: user.id });
    const purchaseId = r.body.purchase_id as string;
    const orderId = (await purchaseRow(s, purchaseId))!.provider_order_id!;
    await visit(paypal.approve(orderId));
    expect((await purchaseRow(s, purchaseId))!.status).toBe('completed');
    return { user, purchaseId, orderId };
  }
  const refund = (client = admin.client, body: Record<string, unknown>) => invokeFunction(client, 'refund-purchase', body);
  const deliver = (d: { headers: Record<string, string>; body: string }) =>
    fetch(`${s.url}/payments/webhook/paypal`, { method: 'POST', headers: d.headers, body: d.body });
  const refundLedger = async (userId: string) =>
    (
      await s.deps.db.query<{ amount: string; description: string }>(
        `select amount, description from public.credit_transactions where user_id = $1 and type = 'refund' order by created_at`,
        [userId],
      )
    ).rows;
  const documents = async (userId: string) =>
    (
      await s.deps.db.query<{ number: string; kind: string; amount: string; receipt_number: string | null }>(
        'select number, kind, amount, receipt_number from public.billing_documents where user_id = $1 order by issued_at, number',
        [userId],
      )
    ).rows;
  const refunds = async (purchaseId: string) =>
    (
      await s.deps.db.query<{ amount: string; kind: string; status: string; provider_refund_id: string | null }>(
        'select amount, kind, status, provider_refund_id from public.credit_refunds where purchase_id = $1 order by created_at',
        [purchaseId],
      )
    ).rows;
  const mails = async (to: string, like: string) =>
    (await s.deps.db.query<{ n: number }>('select count(*)::int as n from nodeharbor.outbox where to_address = $1 and subject like $2', [to, like])).rows[0]!.n;
  const year = new Date().getUTCFullYear();

  it('an admin refunds part of a purchase through PayPal: booked once, with a credit note, a mail and an audit entry', async () => {
    const { user, purchaseId, orderId } = await paid(25);
    const r = await refund(admin.client, { purchase_id: purchaseId, amount: 10, reason: 'Asked by the customer' });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'completed', credit_note: expect.stringMatching(new RegExp(`^NH-CN-${year}-\\d{6}$`)) });

    const [made] = [...paypal.refunds.values()].filter((x) => x.orderId === orderId);
    expect(made).toMatchObject({ value: '10.00', customId: r.body.refund_id, captureId: paypal.orders.get(orderId)!.captureId });
    expect(await balance(user.client)).toBe('15');
    const [receipt, note] = await documents(user.id);
    expect(note).toEqual({ number: r.body.credit_note, kind: 'credit_note', amount: '10.00', receipt_number: receipt!.number });
    expect(await refundLedger(user.id)).toEqual([{ amount: '-10.00', description: `Refund (receipt ${receipt!.number})` }]);
    expect(await mails(user.email, 'We refunded $10.00')).toBe(1);
    const { rows: attached } = await s.deps.db.query<{ name: string; document: string }>(
      `select a ->> 'filename' as name, a ->> 'document' as document
         from nodeharbor.outbox o, jsonb_array_elements(o.attachments) a where o.to_address = $1 and o.subject = 'We refunded $10.00'`,
      [user.email],
    );
    expect(attached).toEqual([{ name: `${note!.number}.pdf`, document: note!.number }]);
    const { rows: audit } = await s.deps.db.query<{ actor: string; action: string; target_id: string; after: Record<string, unknown> }>(
      `select actor, action, target_id, after from private.admin_audit_log where action = 'purchase.refund' and target_id = $1`,
      [user.id],
    );
    expect(audit).toEqual([
      {
        actor: admin.email,
        action: 'purchase.refund',
        target_id: user.id,
        after: { refund_id: r.body.refund_id, amount: '10.00', reason: 'Asked by the customer' },
      },
    ]);

    // PayPal then tells of the same refund, many times over and all at once: nothing more is booked.
    expect(await deliverAtOnce(() => deliver(paypal.refundDelivery('PAYMENT.CAPTURE.REFUNDED', made!)), 50)).toEqual(Array<number>(50).fill(200));
    expect(await balance(user.client)).toBe('15');
    expect(await refundLedger(user.id)).toHaveLength(1);
    expect(await documents(user.id)).toHaveLength(2);
    expect(await mails(user.email, 'We refunded%')).toBe(1);
  });

  it('a refund PayPal finishes later is booked by its webhook, once, under concurrent duplicates', async () => {
    const { user, purchaseId, orderId } = await paid(20);
    paypal.fail.refund = 'pending';
    const r = await refund(admin.client, { purchase_id: purchaseId, amount: 20 });
    expect(r).toMatchObject({ status: 200, body: { status: 'pending', credit_note: null } });
    expect(await balance(user.client)).toBe('20');
    expect(await refunds(purchaseId)).toEqual([{ amount: '20.00', kind: 'refund', status: 'pending', provider_refund_id: null }]);
    // While it is pending, the amount is spoken for.
    expect(await refund(admin.client, { purchase_id: purchaseId, amount: 1 })).toEqual({ status: 409, body: { error: refundTooMuchMessage(0) } });

    const [made] = [...paypal.refunds.values()].filter((x) => x.orderId === orderId);
    made!.status = 'COMPLETED';
    const delivery = paypal.refundDelivery('PAYMENT.CAPTURE.REFUNDED', made!);
    expect(await deliverAtOnce(() => deliver(delivery), 100)).toEqual(Array<number>(100).fill(200));
    expect(await refunds(purchaseId)).toEqual([{ amount: '20.00', kind: 'refund', status: 'completed', provider_refund_id: made!.id }]);
    expect(await balance(user.client)).toBe('0');
    expect(await refundLedger(user.id)).toHaveLength(1);
  });

  it('a refund PayPal answers without its amount is booked by its webhook, which carries it, and is no mismatch', async () => {
    const { user, purchaseId, orderId } = await paid(15);
    paypal.answer.minimal = true;
    const r = await refund(admin.client, { purchase_id: purchaseId, amount: 5 });
    expect(r).toMatchObject({ status: 200, body: { status: 'pending', credit_note: null } });
    expect(await balance(user.client)).toBe('15');
    const [made] = [...paypal.refunds.values()].filter((x) => x.orderId === orderId);
    expect(await deliver(paypal.refundDelivery('PAYMENT.CAPTURE.REFUNDED', made!))).toMatchObject({ status: 200 });
    expect(await refunds(purchaseId)).toEqual([{ amount: '5.00', kind: 'refund', status: 'completed', provider_refund_id: made!.id }]);
    expect(await balance(user.client)).toBe('10');
    expect(await mismatchAudit(s, user.id)).toEqual([]);
  });

  it('a refund marked failed that PayPal reports later books no more than is left to refund', async () => {
    const { user, purchaseId } = await paid(10);
    // Marked failed on an answer we could not read, though PayPal made it; its $8 was freed.
    const { rows } = await s.deps.db.query<{ id: string }>(
      `insert into public.credit_refunds (purchase_id, user_id, amount, kind, status, failure)
       values ($1, $2, 8, 'refund', 'failed', 'PayPal answered a refund without its id') returning id`,
      [purchaseId, user.id],
    );
    expect(await refund(admin.client, { purchase_id: purchaseId, amount: 5 })).toMatchObject({ status: 200, body: { status: 'completed' } });
    const { rows: late } = await s.deps.db.query<{ r: { outcome: string } }>(
      `select private.book_refund($1, $2, 'LATE-REFUND-1', 'USD', '8.00', 'refund', '{}'::jsonb) as r`,
      [purchaseId, rows[0]!.id],
    );
    expect(late[0]!.r.outcome).toBe('mismatch');
    expect(await balance(user.client)).toBe('5');
    expect((await refunds(purchaseId)).map((r) => [r.amount, r.status])).toEqual([
      ['8.00', 'held'],
      ['5.00', 'completed'],
    ]);
  });

  it("a refund made in PayPal's dashboard is booked once from its webhook, under 100 concurrent duplicates", async () => {
    const { user, purchaseId, orderId } = await paid(12);
    const made = paypal.refundElsewhere(orderId, '12.00');
    const delivery = paypal.refundDelivery('PAYMENT.CAPTURE.REFUNDED', made);
    expect(await deliverAtOnce(() => deliver(delivery), 100)).toEqual(Array<number>(100).fill(200));
    expect(await refunds(purchaseId)).toEqual([{ amount: '12.00', kind: 'refund', status: 'completed', provider_refund_id: made.id }]);
    expect(await balance(user.client)).toBe('0');
    expect((await documents(user.id)).map((d) => d.kind)).toEqual(['receipt', 'credit_note']);
  });

  it('a reversal after the credit was spent is booked once, leaves the balance negative, and the admin sees it', async () => {
    const { user, purchaseId, orderId } = await paid(10);
    await s.serviceClient().rpc('update_user_credits', { p_user_id: user.id, p_amount: -7, p_transaction_type: 'service_charge', p_description: 'Spent' });
    const reversal = paypal.refundElsewhere(orderId, '10.00');
    const delivery = paypal.refundDelivery('PAYMENT.CAPTURE.REVERSED', reversal);
    expect(await deliverAtOnce(() => deliver(delivery), 100)).toEqual(Array<number>(100).fill(200));
    expect(await refunds(purchaseId)).toEqual([{ amount: '10.00', kind: 'reversal', status: 'completed', provider_refund_id: reversal.id }]);
    expect(await balance(user.client)).toBe('-7');
    expect((await refundLedger(user.id))[0]!.description).toMatch(/^Payment reversed by PayPal \(receipt NH-\d{4}-\d{6}\)$/);
    expect(await mails(user.email, 'A payment of $10.00 was reversed')).toBe(1);

    // Nothing can be charged to it any more.
    const charge = await s
      .serviceClient()
      .rpc('update_user_credits', { p_user_id: user.id, p_amount: -1, p_transaction_type: 'service_charge', p_description: 'More' });
    expect(charge.data).toBe(false);
    const { data, error } = await admin.client.rpc('admin_user', { p_user_id: user.id });
    expect(error).toBeNull();
    expect(Number((data as { balance: string }).balance)).toBe(-7);
    // A top-up smaller than the debt is still credited, with its receipt; so is an admin's credit.
    const topUp = await purchase(user.client, { amount: 4, credits_amount: 4, user_id: user.id });
    await visit(paypal.approve((await purchaseRow(s, topUp.body.purchase_id as string))!.provider_order_id!));
    expect((await purchaseRow(s, topUp.body.purchase_id as string))!.status).toBe('completed');
    expect(await balance(user.client)).toBe('-3');
    expect((await documents(user.id)).filter((d) => d.kind === 'receipt')).toHaveLength(2);
    expect(
      (await admin.client.rpc('admin_add_credit', { p_user_id: user.id, p_amount: 1, p_note: 'Goodwill', p_idempotency_key: crypto.randomUUID() })).error,
    ).toBeNull();
    expect(await balance(user.client)).toBe('-2');
    // And the refund an admin would make on top is refused: it was all reversed.
    expect(await refund(admin.client, { purchase_id: purchaseId, amount: 1 })).toEqual({ status: 409, body: { error: refundTooMuchMessage(0) } });
  });

  it('two admins refunding at once cannot refund more than was paid', async () => {
    const { user, purchaseId } = await paid(10);
    const other = await createTestUser(s, { admin: true });
    const [a, b] = await Promise.all([
      refund(admin.client, { purchase_id: purchaseId, amount: 6 }),
      refund(other.client, { purchase_id: purchaseId, amount: 6 }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect([a, b].find((x) => x.status === 409)!.body).toEqual({ error: refundTooMuchMessage(4) });
    expect(await balance(user.client)).toBe('4');
  });

  it("PayPal refusing a refund frees its amount, and the audit log says so in the admin's name", async () => {
    const { user, purchaseId } = await paid(10);
    paypal.fail.refund = 'refused';
    expect(await refund(admin.client, { purchase_id: purchaseId, amount: 10 })).toEqual({
      status: 502,
      body: { error: 'PayPal refused the refund (PAYEE_ACCOUNT_RESTRICTED)' },
    });
    expect((await refunds(purchaseId)).map((r) => r.status)).toEqual(['failed']);
    const { rows: audit } = await s.deps.db.query<{ actor: string; action: string }>(
      `select actor, action from private.admin_audit_log where target_id = $1 order by id`,
      [user.id],
    );
    expect(audit).toEqual([
      { actor: admin.email, action: 'purchase.refund' },
      { actor: admin.email, action: 'purchase.refund_failed' },
    ]);
    paypal.fail.refund = 'none';
    expect((await refund(admin.client, { purchase_id: purchaseId, amount: 10 })).status).toBe(200);
    expect(await balance(user.client)).toBe('0');
  });

  it('a refund PayPal made without answering is made once: it stays reserved, and a retry of the same amount books that one', async () => {
    const { user, purchaseId, orderId } = await paid(10);
    paypal.fail.refund = 'lost';
    const unanswered = await refund(admin.client, { purchase_id: purchaseId, amount: 4 });
    expect(unanswered.status).toBe(503);
    expect(unanswered.body.error).toBe(
      'PayPal answered POST /v2/payments/captures/{id}/refund with 503 (SERVICE_UNAVAILABLE). The refund may have been made: it is booked when the provider confirms it. Refunding the same amount again asks once more, and is never made twice.',
    );
    expect(await refunds(purchaseId)).toEqual([{ amount: '4.00', kind: 'refund', status: 'pending', provider_refund_id: null }]);
    // Reserved meanwhile: only what is left beside it can be refunded.
    expect(await refund(admin.client, { purchase_id: purchaseId, amount: 7 })).toEqual({ status: 409, body: { error: refundTooMuchMessage(6) } });

    paypal.fail.refund = 'none';
    expect(await refund(admin.client, { purchase_id: purchaseId, amount: 4 })).toMatchObject({ status: 200, body: { status: 'completed' } });
    expect([...paypal.refunds.values()].filter((r) => r.orderId === orderId)).toHaveLength(1);
    expect(await refunds(purchaseId)).toEqual([{ amount: '4.00', kind: 'refund', status: 'completed', provider_refund_id: expect.any(String) }]);
    expect(await balance(user.client)).toBe('6');
  });

  it('refuses a caller who is not an admin, or not signed in, or an admin without the second factor they enrolled', async () => {
    const { user, purchaseId } = await paid(5);
    expect(await refund(user.client, { purchase_id: purchaseId, amount: 5 })).toEqual({ status: 403, body: { error: 'Only admins can refund purchases' } });
    expect(await refund(s.client(), { purchase_id: purchaseId, amount: 5 })).toEqual({ status: 401, body: { error: 'Authentication required' } });
    const guarded = await createTestUser(s, { admin: true });
    await verifyNewFactor(guarded);
    expect(await refund(await signInAal1(s, guarded), { purchase_id: purchaseId, amount: 5 })).toEqual({
      status: 403,
      body: { error: messages.secondFactorRequired },
    });
    expect(await refunds(purchaseId)).toEqual([]);
    expect(await balance(user.client)).toBe('5');
  });

  it('says what is wrong with a refund it cannot make, and changes nothing', async () => {
    const { user, purchaseId } = await paid(5);
    const pending = await createTestUser(s);
    const open = (await purchase(pending.client, { amount: 5, credits_amount: 5, user_id: pending.id })).body.purchase_id as string;
    const cases: [Record<string, unknown>, number, string][] = [
      [{ purchase_id: purchaseId, amount: 0 }, 400, messages.refundAmount],
      [{ purchase_id: purchaseId, amount: 1.234 }, 400, messages.refundAmount],
      [{ purchase_id: purchaseId, amount: '5' }, 400, messages.refundAmount],
      [{ purchase_id: purchaseId, amount: 1e300 }, 400, messages.refundAmount],
      [{ purchase_id: purchaseId, amount: 1, reason: 'x'.repeat(501) }, 400, messages.refundReasonLong],
      [{ purchase_id: 'not-a-purchase', amount: 1 }, 400, messages.unknownPurchase],
      [{ purchase_id: crypto.randomUUID(), amount: 1 }, 404, 'Purchase not found'],
      [{ purchase_id: open, amount: 1 }, 409, 'Only a completed purchase can be refunded'],
      [{ purchase_id: purchaseId, amount: 5.01 }, 409, refundTooMuchMessage(5)],
    ];
    for (const [body, status, error] of cases) {
      const r = await refund(admin.client, body);
      expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status, error });
    }
    expect(await refunds(purchaseId)).toEqual([]);
    expect(await balance(user.client)).toBe('5');
  });

  it('acknowledges a refund of a capture that is not ours, and books nothing', async () => {
    paypal.orders.set('FOREIGNORDER0002', {
      id: 'FOREIGNORDER0002',
      status: 'COMPLETED',
      value: '99.00',
      purchaseId: 'someone-else',
      returnUrl: 'https://shop.example/r',
      cancelUrl: 'https://shop.example/c',
      captureId: 'FOREIGNCAPTURE02',
    });
    const before = (await s.deps.db.query<{ n: number }>('select count(*)::int as n from public.credit_refunds')).rows[0]!.n;
    expect((await deliver(paypal.refundDelivery('PAYMENT.CAPTURE.REVERSED', paypal.refundElsewhere('FOREIGNORDER0002', '99.00')))).status).toBe(200);
    expect((await s.deps.db.query<{ n: number }>('select count(*)::int as n from public.credit_refunds')).rows[0]!.n).toBe(before);
  });

  // Issue 42, item 2: what PayPal refunded or reversed is compared with what the order can give back.
  describe('a refund or reversal that does not match its order', () => {
    const creditNotes = async (userId: string) => (await documents(userId)).filter((d) => d.kind === 'credit_note');

    it.each<{ currency: string; value: string }>([
      { currency: 'JPY', value: '4' },
      { currency: 'USD', value: '4.01' },
    ])("an admin's USD 4.00 refund that PayPal makes as $currency $value debits nothing: held, audited, the admins alerted", async ({ currency, value }) => {
      const { user, purchaseId, orderId } = await paid(10);
      paypal.answer.refund = { currency_code: currency, value };
      const r = await refund(admin.client, { purchase_id: purchaseId, amount: 4 });
      const [made] = [...paypal.refunds.values()].filter((x) => x.orderId === orderId);
      const mismatch = {
        what: 'refund' as const,
        reference: made!.id,
        order_id: orderId,
        user_email: user.email,
        reported: `${currency} ${value}`,
        expectation: 'exactly' as const,
        expected: 'USD 4.00',
      };
      expect(r).toEqual({ status: 502, body: { error: paymentMismatchParagraphs(mismatch).slice(0, 2).join(' ') } });
      expect(await refunds(purchaseId)).toEqual([{ amount: '4.00', kind: 'refund', status: 'held', provider_refund_id: made!.id }]);
      expect(await balance(user.client)).toBe('10');
      expect(await refundLedger(user.id)).toEqual([]);
      expect(await creditNotes(user.id)).toEqual([]);
      expect(await mismatchAudit(s, user.id)).toEqual([
        {
          actor: 'server',
          target_label: user.email,
          before: { purchase_id: purchaseId, order_id: orderId, expectation: 'exactly', expected: 'USD 4.00' },
          after: { what: 'refund', reference: made!.id, reported: `${currency} ${value}` },
        },
      ]);
      expect((await mismatchAlerts(s, admin.email, made!.id)).map((a) => a.text_body)).toEqual([paymentMismatchParagraphs(mismatch).join('\n\n')]);

      // Its webhook, many times over, books nothing either; and the held amount stays out of reach.
      const delivery = paypal.refundDelivery('PAYMENT.CAPTURE.REFUNDED', made!);
      expect(await deliverAtOnce(() => deliver(delivery), 20)).toEqual(Array<number>(20).fill(200));
      expect(await refund(admin.client, { purchase_id: purchaseId, amount: 7 })).toEqual({ status: 409, body: { error: refundTooMuchMessage(6) } });
      expect(await balance(user.client)).toBe('10');
      expect(await refundLedger(user.id)).toEqual([]);
      expect(await mismatchAudit(s, user.id)).toHaveLength(1);
      expect(await mismatchAlerts(s, admin.email, made!.id)).toHaveLength(1);
    });

    it.each<{ event: 'PAYMENT.CAPTURE.REFUNDED' | 'PAYMENT.CAPTURE.REVERSED'; currency: string; value: string }>([
      { event: 'PAYMENT.CAPTURE.REFUNDED', currency: 'JPY', value: '10' },
      { event: 'PAYMENT.CAPTURE.REVERSED', currency: 'EUR', value: '10.00' },
      { event: 'PAYMENT.CAPTURE.REFUNDED', currency: 'USD', value: '10.01' },
      { event: 'PAYMENT.CAPTURE.REVERSED', currency: 'USD', value: '10.01' },
    ])(
      '$event of $currency $value for a USD 10.00 purchase debits nothing: held, audited once, the admins alerted once',
      async ({ event, currency, value }) => {
        const { user, purchaseId, orderId } = await paid(10);
        const made = paypal.refundElsewhere(orderId, value, currency);
        const delivery = paypal.refundDelivery(event, made);
        expect(await deliverAtOnce(() => deliver(delivery), 20)).toEqual(Array<number>(20).fill(200));
        const kind = event === 'PAYMENT.CAPTURE.REVERSED' ? 'reversal' : 'refund';
        // Held, it keeps what was left to refund: no admin refunds on top until a person has looked.
        expect(await refunds(purchaseId)).toEqual([{ amount: '10.00', kind, status: 'held', provider_refund_id: made.id }]);
        expect(await refund(admin.client, { purchase_id: purchaseId, amount: 1 })).toEqual({ status: 409, body: { error: refundTooMuchMessage(0) } });
        expect(await balance(user.client)).toBe('10');
        expect(await refundLedger(user.id)).toEqual([]);
        expect(await creditNotes(user.id)).toEqual([]);
        expect((await mails(user.email, 'We refunded%')) + (await mails(user.email, 'A payment of % was reversed'))).toBe(0);
        expect((await mismatchAudit(s, user.id)).map((a) => [a.before, a.after])).toEqual([
          [
            { purchase_id: purchaseId, order_id: orderId, expectation: 'at_most', expected: 'USD 10.00' },
            { what: kind, reference: made.id, reported: `${currency} ${value}` },
          ],
        ]);
        expect(await mismatchAlerts(s, admin.email, made.id)).toHaveLength(1);
      },
    );

    it('a refund of a purchase whose capture did not match debits nothing', async () => {
      const user = await createTestUser(s);
      const purchaseId = (await purchase(user.client, { amount: 9, credits_amount: 9, user_id: user.id })).body.purchase_id as string;
      const orderId = (await purchaseRow(s, purchaseId))!.provider_order_id!;
      paypal.answer.capture = { currency_code: 'JPY', value: '9' };
      await visit(paypal.approve(orderId));
      expect((await purchaseRow(s, purchaseId))!.status).toBe('rejected');
      // Given back at PayPal, as the alert asks: the customer was never credited, so nothing is debited.
      const made = paypal.refundElsewhere(orderId, '9.00');
      expect((await deliver(paypal.refundDelivery('PAYMENT.CAPTURE.REFUNDED', made))).status).toBe(200);
      expect(await refunds(purchaseId)).toEqual([{ amount: '0.00', kind: 'refund', status: 'held', provider_refund_id: made.id }]);
      expect(await balance(user.client)).toBe('0');
      expect(await refundLedger(user.id)).toEqual([]);
      expect((await mismatchAudit(s, user.id)).map((a) => a.after)).toEqual([
        { what: 'capture', reference: paypal.orders.get(orderId)!.captureId, reported: 'JPY 9' },
        { what: 'refund', reference: made.id, reported: 'USD 9.00' },
      ]);
      expect(await mismatchAlerts(s, admin.email, made.id)).toHaveLength(1);
    });
  });

  it('a forged refund event is refused and books nothing', async () => {
    const { user, orderId } = await paid(5);
    paypal.fail.webhookSignature = 'invalid';
    expect((await deliver(paypal.refundDelivery('PAYMENT.CAPTURE.REVERSED', paypal.refundElsewhere(orderId, '5.00')))).status).toBe(400);
    expect(await balance(user.client)).toBe('5');
  });
});

describe('refunds through the built-in test provider', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  });
  afterEach(() => expectLedgerBalanced(s.deps.db));
  afterAll(() => s.stop());

  it('refunds a test purchase in full, booked once with a credit note', async () => {
    const admin = await createTestUser(s, { admin: true });
    const user = await createTestUser(s);
    const purchaseId = await paidWithTestProvider(user, 8);
    expect((await purchaseRow(s, purchaseId))!.status).toBe('completed');
    const done = await invokeFunction(admin.client, 'refund-purchase', { purchase_id: purchaseId, amount: 8 });
    expect(done).toMatchObject({ status: 200, body: { status: 'completed' } });
    expect(await balance(user.client)).toBe('0');
    const { rows } = await s.deps.db.query<{ provider_refund_id: string }>('select provider_refund_id from public.credit_refunds where purchase_id = $1', [
      purchaseId,
    ]);
    expect(rows).toEqual([{ provider_refund_id: `TEST-REFUND-${done.body.refund_id as string}` }]);
  });

  it('refuses, and books nothing, to refund a purchase paid through a provider this server no longer runs', async () => {
    const admin = await createTestUser(s, { admin: true });
    const user = await createTestUser(s);
    const purchaseId = await paidWithTestProvider(user, 6);
    await s.deps.db.query(`update public.credit_purchases set provider = 'paypal' where id = $1`, [purchaseId]);
    const refused = await invokeFunction(admin.client, 'refund-purchase', { purchase_id: purchaseId, amount: 6 });
    expect(refused).toMatchObject({
      status: 502,
      body: { error: 'This purchase was paid through paypal, which is not the payment provider configured now' },
    });
    expect(await balance(user.client)).toBe('6');
  });
});

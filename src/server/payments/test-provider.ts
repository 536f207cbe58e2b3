import { randomUUID } from 'node:crypto';
import type { Database } from '../db/database';
import { centsToDollars, PaymentProviderError, type OrderState, type PaymentProvider } from './provider';

export type TestOrder = {
  id: string;
  amount_cents: number;
  status: 'CREATED' | 'APPROVED' | 'VOIDED' | 'COMPLETED';
  return_url: string;
  cancel_url: string;
};

const STATES: Record<TestOrder['status'], OrderState> = {
  CREATED: 'awaiting_approval',
  APPROVED: 'approved',
  VOIDED: 'voided',
  COMPLETED: 'completed',
};

/** Path of the approval page that payments.routes.ts serves for the test provider. */
export function testApprovalPath(orderId: string): string {
  return `/payments/test/approve/${encodeURIComponent(orderId)}`;
}

/**
 * The embedded default's provider: orders live in our own database and the buyer approves or
 * rejects them on a page of our own, labelled as a test. No money moves; the credit is real, which
 * is why a PayPal configuration is required for real customers.
 */
export function createTestProvider(db: Database): PaymentProvider {
  return {
    name: 'test',

    async createOrder(amountCents, purchaseId, returnUrl, cancelUrl) {
      const { rows } = await db.query<{ id: string }>(
        `insert into nodeharbor.test_payment_orders (id, purchase_id, amount_cents, return_url, cancel_url)
         values ($1, $2, $3, $4, $5) returning id`,
        [`TEST-${randomUUID()}`, purchaseId, amountCents, returnUrl, cancelUrl],
      );
      const orderId = rows[0]!.id;
      // The page is ours, on the same origin as the return URL.
      return { orderId, approvalUrl: new URL(testApprovalPath(orderId), returnUrl).toString() };
    },

    async getOrder(orderId) {
      const order = await findTestOrder(db, orderId);
      return { id: orderId, state: order ? STATES[order.status] : 'not_found' };
    },

    async captureOrder(orderId) {
      const { rows } = await db.query<{ amount_cents: number }>(
        `update nodeharbor.test_payment_orders set status = 'COMPLETED'
          where id = $1 and status in ('APPROVED', 'COMPLETED') returning amount_cents`,
        [orderId],
      );
      if (rows[0]) return { status: 'completed', captured: { currency: 'USD', value: centsToDollars(Number(rows[0].amount_cents)) }, captureId: null };
      const order = await findTestOrder(db, orderId);
      if (!order) throw new PaymentProviderError(`No test order ${orderId}`, false);
      return order.status === 'VOIDED' ? { status: 'declined', reason: 'REJECTED_ON_TEST_PAGE' } : { status: 'not_approved' };
    },

    async refund({ orderId, cents, refundId }) {
      const order = await findTestOrder(db, orderId);
      if (order?.status !== 'COMPLETED') return { status: 'refused', reason: `Test order ${orderId} was never paid` };
      // What is left to refund is the database's to check (private.begin_refund); no money moves.
      return { status: 'completed', providerRefundId: `TEST-REFUND-${refundId}`, refunded: { currency: 'USD', value: centsToDollars(cents) }, captureId: null };
    },

    // The test provider sends no webhooks, so none is authentic.
    verifyWebhook: () => Promise.resolve(null),
  };
}

export async function findTestOrder(db: Database, orderId: string): Promise<TestOrder | undefined> {
  const { rows } = await db.query<TestOrder>('select id, amount_cents, status, return_url, cancel_url from nodeharbor.test_payment_orders where id = $1', [
    orderId,
  ]);
  const order = rows[0];
  return order && { ...order, amount_cents: Number(order.amount_cents) };
}

/** The buyer's decision on the test page; only an order still awaiting one changes. */
export async function decideTestOrder(db: Database, orderId: string, approve: boolean): Promise<TestOrder | undefined> {
  await db.query(`update nodeharbor.test_payment_orders set status = $2 where id = $1 and status = 'CREATED'`, [orderId, approve ? 'APPROVED' : 'VOIDED']);
  return findTestOrder(db, orderId);
}

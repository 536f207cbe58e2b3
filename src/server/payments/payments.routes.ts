import { Hono, type Context } from 'hono';
import { isUuid } from '../../shared/validation';
import type { AppDeps } from '../deps';
import { requestDeps } from '../http/share-by-caller';
import { PaymentProviderError } from './provider';
import { closePurchase, findPurchase } from './purchases';
import { bookRefundEvent } from './refunds';
import { captureAndCredit, closeOrder, credit, settleInvoice, type Settlement } from './settle';
import { testApprovalPage } from './test-approval-page';
import { decideTestOrder, findTestOrder } from './test-provider';

/** What the Billing page is told, in ?payment=; a success also names the purchase, whose amount the page reads as its owner. */
type Result = 'success' | 'pending' | 'cancelled' | 'failed';

const RESULTS: Record<Settlement, Result> = {
  completed: 'success',
  pending: 'pending',
  rejected: 'failed',
  expired: 'failed',
  unknown: 'failed',
};

/**
 * /payments: the provider's return URL, PayPal's webhook, the crypto processor's callbacks and
 * return, and the test provider's approval page.
 * Every path that credits goes through settle.ts, so they may all arrive at once.
 */
export function paymentRoutes(appDeps: AppDeps): Hono {
  const { logger, payments } = appDeps;
  const app = new Hono();
  const back = (c: Context, result: Result, purchaseId?: string) =>
    c.redirect(`/dashboard/billing?payment=${result}${result === 'success' && purchaseId ? `&purchase=${purchaseId}` : ''}`, 303);

  // The browser comes back here from the approval page; PayPal adds its own token, which we do not need.
  app.get('/return', async (c) => {
    const deps = requestDeps(c, appDeps);
    const { db } = deps;
    const cancelled = c.req.query('cancelled') === '1';
    const purchaseId = c.req.query('purchase') ?? '';
    const purchase = isUuid(purchaseId) ? await findPurchase(db, { id: purchaseId }) : undefined;
    const orderId = purchase?.provider_order_id;
    if (!purchase || !orderId || purchase.provider !== payments.name) return back(c, 'failed');
    if (purchase.status === 'completed') return back(c, 'success', purchase.id);
    if (purchase.status !== 'pending') return back(c, cancelled ? 'cancelled' : 'failed');
    try {
      if (cancelled) {
        // Only the buyer, sent back by the provider with its order's token, may cancel: anyone else
        // who learnt the purchase id changes nothing (reconciliation closes an abandoned order).
        if (c.req.query('token') !== orderId) return back(c, 'cancelled');
        // Approved in another tab after all? Then it is paid, not cancelled.
        const order = await payments.getOrder(orderId);
        if (order.state !== 'approved' && order.state !== 'completed') {
          await closePurchase(db, purchase.id, 'rejected');
          return back(c, 'cancelled');
        }
      }
      return back(c, RESULTS[await captureAndCredit(deps, orderId)], purchase.id);
    } catch (e) {
      if (!(e instanceof PaymentProviderError)) throw e;
      // Still pending: reconciliation captures it once the provider answers again.
      logger.warn('capture on return failed', { purchase_id: purchase.id, error: e.message });
      return back(c, 'failed');
    }
  });

  app.post('/webhook/paypal', async (c) => {
    const deps = requestDeps(c, appDeps);
    const { db } = deps;
    if (payments.name !== 'paypal') return c.json({ error: 'PayPal is not configured' }, 404);
    const raw = await c.req.text();
    try {
      const event = await payments.verifyWebhook(c.req.header(), raw);
      if (!event) {
        logger.warn('paypal webhook refused: not verified');
        return c.json({ error: 'Webhook signature could not be verified' }, 400);
      }
      if (event.kind === 'ignored') return c.json({ received: true });
      if (event.kind === 'refunded') {
        // Another shop's capture is not ours to book: acknowledged and left alone.
        // Warned: a refund of a purchase paid before capture ids were kept lands here too, and needs a person.
        if ((await bookRefundEvent(deps, event)).outcome === 'unknown')
          logger.warn('paypal refund of a capture not ours', { refund_id: event.refundId, capture_id: event.captureId });
        return c.json({ received: true });
      }
      // The PayPal app may serve other shops too: never capture an order that is not one of ours.
      if (!(await findPurchase(db, { orderId: event.orderId }))) return c.json({ received: true });
      if (event.kind === 'approved') await captureAndCredit(deps, event.orderId);
      else if (event.kind === 'captured') await credit(deps, event.orderId, event.captured, event.captureId);
      else if (event.kind === 'closed') await closeOrder(deps, event.orderId, event.status);
      return c.json({ received: true });
    } catch (e) {
      if (!(e instanceof PaymentProviderError)) throw e;
      // PayPal delivers again after a non-2xx answer; only a passing failure is worth its retry.
      logger.warn('paypal webhook not handled', { error: e.message });
      return e.transient ? c.json({ error: 'Try again later' }, 503) : c.json({ error: 'Webhook could not be handled' }, 400);
    }
  });

  // Crypto top-ups (decision 050): NOWPayments' signed callbacks, and the buyer's way back from its invoice.
  app.post('/webhook/nowpayments', async (c) => {
    const deps = requestDeps(c, appDeps);
    const { db } = deps;
    const crypto = deps.crypto;
    if (!crypto) return c.json({ error: 'Crypto payments are not configured' }, 404);
    const settled = crypto.verifyCallback(c.req.header(), await c.req.text());
    if (!settled) {
      logger.warn('nowpayments callback refused: not verified');
      return c.json({ error: 'Callback signature could not be verified' }, 401);
    }
    // An invoice of another shop on the same account, or one that names another purchase: acknowledged and left alone.
    const purchase = await findPurchase(db, { orderId: settled.invoiceId });
    if (!purchase || purchase.provider !== crypto.name || (settled.purchaseId !== null && settled.purchaseId !== purchase.id)) {
      return c.json({ received: true });
    }
    await settleInvoice(deps, settled);
    return c.json({ received: true });
  });

  app.get('/crypto/return', async (c) => {
    const deps = requestDeps(c, appDeps);
    const { db } = deps;
    const purchaseId = c.req.query('purchase') ?? '';
    const purchase = isUuid(purchaseId) ? await findPurchase(db, { id: purchaseId }) : undefined;
    const orderId = purchase?.provider_order_id;
    if (!deps.crypto || !purchase || !orderId || purchase.provider !== deps.crypto.name) return back(c, 'failed');
    if (purchase.status === 'completed') return back(c, 'success', purchase.id);
    // Left open: a payment may still reach the invoice, and reconciliation settles it then.
    if (c.req.query('cancelled') === '1') return back(c, 'cancelled');
    try {
      return back(c, RESULTS[await settleInvoice(deps, await deps.crypto.invoiceSettlement(orderId))], purchase.id);
    } catch (e) {
      if (!(e instanceof PaymentProviderError)) throw e;
      logger.warn('crypto invoice not read on return', { purchase_id: purchase.id, error: e.message });
      return back(c, 'pending');
    }
  });

  if (payments.name === 'test') {
    app.get('/test/approve/:orderId', async (c) => {
      const { db } = requestDeps(c, appDeps);
      const order = await findTestOrder(db, c.req.param('orderId'));
      c.header('Cache-Control', 'no-store');
      if (!order) return c.html('<!doctype html><title>Not found</title><p>No such test payment.</p>', 404);
      return c.html(testApprovalPage(order));
    });
    app.post('/test/approve/:orderId', async (c) => {
      const { db } = requestDeps(c, appDeps);
      const form = await c.req.parseBody();
      const decision = form.decision;
      if (decision !== 'approve' && decision !== 'reject') return c.text('Choose Approve or Reject', 400);
      const order = await decideTestOrder(db, c.req.param('orderId'), decision === 'approve');
      if (!order) return c.text('No such test payment', 404);
      // Like PayPal, the provider names its order in the token parameter.
      const target = new URL(order.status === 'VOIDED' ? order.cancel_url : order.return_url);
      target.searchParams.set('token', order.id);
      return c.redirect(target.toString(), 303);
    });
  }
  return app;
}

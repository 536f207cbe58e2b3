import type { Context } from 'hono';
import { cryptoMessages } from '../../shared/crypto-payments';
import { messages, purchaseCreditsSchema } from '../../shared/validation';
import type { AppDeps } from '../deps';
import { PaymentProviderError } from '../payments/provider';
import { attachOrder, beginPurchase, closePurchase } from '../payments/purchases';
import { fail, invalid, jsonBody, overLimit } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

/** A person buys credit a few times at most; each attempt opens an order at the provider. */
const LIMIT = { max: 20, windowSeconds: 600 };

/**
 * purchase-credits of spec §7: starts a pending purchase for the signed-in caller, opens the
 * provider's order, and answers where to send the browser. user_id in the body is only checked:
 * the purchase is always the caller's own.
 */
export async function purchaseCredits(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c, messages.notAuthenticated);
  if (caller instanceof Response) return caller;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const parsed = purchaseCreditsSchema.safeParse(read.body);
  if (!parsed.success) return invalid(c, parsed.error);
  const { amount, user_id, method } = parsed.data;
  if (user_id && user_id !== caller.userId) return fail(c, 403, messages.purchaseForOther);
  const crypto = method === 'crypto' ? deps.crypto : undefined;
  if (method === 'crypto' && !crypto) return fail(c, 400, cryptoMessages.notAvailable);
  const limited = await overLimit(
    deps,
    c,
    `purchase:user:${caller.userId}`,
    LIMIT,
    (wait) => `Too many payment attempts. Please try again in ${Math.ceil(wait / 60)} minutes.`,
  );
  if (limited) return limited;
  const cents = Math.round(amount * 100);
  const purchaseId = await beginPurchase(deps.db, caller.claims, cents, crypto?.name ?? deps.payments.name);
  if (!purchaseId) return fail(c, 401, messages.notAuthenticated);
  // From the configuration only: a Host header must never choose where the provider sends the buyer.
  const base = deps.config.publicUrl;
  try {
    if (crypto) {
      const returnUrl = `${base}/payments/crypto/return?purchase=${purchaseId}`;
      const invoice = await crypto.createInvoice({
        cents,
        purchaseId,
        successUrl: returnUrl,
        cancelUrl: `${returnUrl}&cancelled=1`,
        callbackUrl: `${base}/payments/webhook/nowpayments`,
      });
      await attachOrder(deps.db, purchaseId, invoice.invoiceId);
      return c.json({ approval_url: invoice.url, purchase_id: purchaseId });
    }
    const returnUrl = `${base}/payments/return?purchase=${purchaseId}`;
    const order = await deps.payments.createOrder(cents, purchaseId, returnUrl, `${returnUrl}&cancelled=1`);
    await attachOrder(deps.db, purchaseId, order.orderId);
    return c.json({ approval_url: order.approvalUrl, purchase_id: purchaseId });
  } catch (e) {
    if (!(e instanceof PaymentProviderError)) throw e;
    deps.logger.error('payment order not created', { purchase_id: purchaseId, error: e.message });
    // The buyer never saw an approval page, so nothing can be paid on this purchase.
    await closePurchase(deps.db, purchaseId, 'rejected');
    return fail(c, 502, 'Failed to initiate payment');
  }
}

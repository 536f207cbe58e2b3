import type { AppDeps } from '../deps';
import { escapeHtml } from '../mail/escape-html';
import { closePurchase, completePurchase, findPurchase, type PurchaseStatus } from './purchases';

/** Where a purchase stands after we asked: 'unknown' when the order is not one of ours. */
export type Settlement = PurchaseStatus | 'unknown';

/**
 * Captures the order at the provider and credits its purchase once; a declined capture rejects
 * it. Throws PaymentProviderError when the provider cannot be reached: the purchase stays pending
 * and reconciliation tries again.
 */
export async function captureAndCredit(deps: AppDeps, orderId: string): Promise<Settlement> {
  const result = await deps.payments.captureOrder(orderId);
  switch (result.status) {
    case 'completed':
      return credit(deps, orderId, result.capturedCents);
    case 'declined':
      return closeOrder(deps, orderId, 'rejected');
    case 'pending':
    case 'not_approved':
      return 'pending';
  }
}

/** Credits a captured order once; the receipt goes out only from the call that credited. */
export async function credit(deps: AppDeps, orderId: string, capturedCents: number): Promise<Settlement> {
  const r = await completePurchase(deps.db, orderId, capturedCents);
  if (r.outcome === 'unknown') {
    deps.logger.warn('captured order has no purchase', { order_id: orderId });
    return 'unknown';
  }
  if (r.outcome === 'credited') {
    deps.logger.info('purchase credited', { order_id: orderId, user_id: r.user_id });
    await sendReceipt(deps, r.user_id!, r.amount!);
  }
  return 'completed';
}

export async function closeOrder(deps: AppDeps, orderId: string, status: 'rejected' | 'expired'): Promise<Settlement> {
  const purchase = await findPurchase(deps.db, { orderId });
  if (!purchase) return 'unknown';
  const after = await closePurchase(deps.db, purchase.id, status);
  if (after === status) deps.logger.info('purchase closed', { order_id: orderId, status });
  return after;
}

/**
 * The "payment received" e-mail, best effort: the credit is already committed and must stand.
 * NOTE: moves onto the durable job queue at merge, like reconciliation.
 */
async function sendReceipt(deps: AppDeps, userId: string, amount: string): Promise<void> {
  try {
    const { rows } = await deps.db.query<{ email: string | null }>('select email from auth.users where id = $1', [userId]);
    const to = rows[0]?.email;
    if (!to) return;
    const dollars = `$${Number(amount).toFixed(2)}`;
    const text = `We received your payment of ${dollars}. ${dollars} of credit has been added to your NodeHarbor balance. Funds never expire.`;
    await deps.mailer.send({ to, subject: 'Payment received', text, html: `<p>${escapeHtml(text)}</p>` });
  } catch (e) {
    deps.logger.warn('payment receipt not sent', { user_id: userId, error: e instanceof Error ? e.message : String(e) });
  }
}

import type { AppDeps } from '../deps';
import { paymentReceivedMail } from '../mail/templates/payment-received';
import { fromMail, notify } from '../notify/notify';
import { alertAdmins } from './mismatch';
import { CRYPTO_PROVIDER, cryptoNote } from '../../shared/crypto-payments';
import type { InvoiceSettlement } from './crypto';
import type { Money } from './provider';
import { closePurchase, completePurchase, findPurchase, type PurchaseStatus } from './purchases';

/** What settling needs: the request handlers and the reconciliation job both have it. */
export type SettleDeps = Pick<AppDeps, 'db' | 'logger' | 'mailer' | 'payments' | 'crypto' | 'seller'>;

/** Where a purchase stands after we asked: 'unknown' when the order is not one of ours. */
export type Settlement = PurchaseStatus | 'unknown';

/**
 * Captures the order at the provider and credits its purchase once; a declined capture rejects
 * it. Throws PaymentProviderError when the provider cannot be reached: the purchase stays pending
 * and reconciliation tries again.
 */
export async function captureAndCredit(deps: SettleDeps, orderId: string): Promise<Settlement> {
  const result = await deps.payments.captureOrder(orderId);
  switch (result.status) {
    case 'completed':
      return credit(deps, orderId, result.captured, result.captureId);
    case 'declined':
      return closeOrder(deps, orderId, 'rejected');
    case 'pending':
    case 'not_approved':
      return 'pending';
  }
}

/**
 * Credits a captured order once; the receipt goes out only from the call that credited. A capture
 * in another currency or amount credits nothing: the admins are alerted and the purchase stays as
 * the database left it (rejected, when it was pending).
 */
export async function credit(
  deps: SettleDeps,
  orderId: string,
  captured: Money,
  captureId: string | null,
  byValue?: { note: string | null },
): Promise<Settlement> {
  const r = await deps.db.transaction(async (tx) => {
    const outcome = await completePurchase(tx, orderId, { ...captured, captureId }, deps.seller, byValue);
    if (outcome.outcome === 'mismatch') await alertAdmins(deps, tx, outcome);
    return outcome;
  });
  if (r.outcome === 'mismatch') return r.status;
  if (r.outcome === 'unknown') {
    deps.logger.warn('captured order has no purchase', { order_id: orderId });
    return 'unknown';
  }
  if (r.outcome === 'credited') {
    deps.logger.info('purchase credited', { order_id: orderId, user_id: r.user_id });
    await queueReceipt(deps, orderId, r.user_id!, r.amount!, r.receipt!);
  }
  return 'completed';
}

/**
 * Settles a crypto invoice as its processor tells it (decision 050): a paid one credits what
 * arrived, once, with a note when that differs from the order or came after the purchase expired;
 * an expired or failed one closes its purchase, unless it was paid.
 */
export async function settleInvoice(deps: SettleDeps, s: InvoiceSettlement): Promise<Settlement> {
  const purchase = await findPurchase(deps.db, { orderId: s.invoiceId });
  if (!purchase || purchase.provider !== CRYPTO_PROVIDER) return 'unknown';
  if (s.state === 'open') return purchase.status;
  if (s.state === 'expired' || s.state === 'failed') return closeOrder(deps, s.invoiceId, s.state === 'expired' ? 'expired' : 'rejected');
  const paid = Number(s.arrived.value);
  const note = Number.isFinite(paid) ? cryptoNote(paid, Number(purchase.amount), purchase.status === 'expired') : null;
  return credit(deps, s.invoiceId, s.arrived, s.paymentId, { note });
}

export async function closeOrder(deps: SettleDeps, orderId: string, status: 'rejected' | 'expired'): Promise<Settlement> {
  const purchase = await findPurchase(deps.db, { orderId });
  if (!purchase) return 'unknown';
  const after = await closePurchase(deps.db, purchase.id, status);
  if (after === status) deps.logger.info('purchase closed', { order_id: orderId, status });
  return after;
}

/**
 * The "payment received" e-mail with the receipt's PDF, queued once per order (a second
 * settlement of the same order queues nothing). Best effort: the credit is committed and stands
 * even if this fails, and a receipt that cannot be drawn leaves the mail without its attachment.
 */
async function queueReceipt(deps: SettleDeps, orderId: string, userId: string, amount: string, receipt: string): Promise<void> {
  try {
    const { rows } = await deps.db.query<{ email: string | null; balance: string; provider: string }>(
      `select u.email, c.balance, p.provider from auth.users u
         join public.user_credits c on c.user_id = u.id
         join public.credit_purchases p on p.user_id = u.id and p.provider_order_id = $2
        where u.id = $1`,
      [userId, orderId],
    );
    const r = rows[0];
    if (!r?.email) return;
    const mail = paymentReceivedMail({ to: r.email, amount, balance: r.balance, test: r.provider === 'test', receipt });
    const message = fromMail(mail, { amount, balance: r.balance, receipt });
    await deps.db.transaction((tx) => notify(tx, deps, { userId, event: 'payment_received', key: `payment-received:${orderId}`, mail, message }));
  } catch (e) {
    deps.logger.warn('payment receipt not queued', { user_id: userId, error: e instanceof Error ? e.message : String(e) });
  }
}

import type { Context } from 'hono';
import { refundPurchaseSchema } from '../../shared/validation';
import type { AppDeps } from '../deps';
import { withClaims } from '../db/with-claims';
import { PaymentProviderError } from '../payments/provider';
import { makeRefund, RefundRefused, reserveRefund } from '../payments/refunds';
import { callerContext, fail, invalid, jsonBody, overLimit } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

/** Refunds are rare; a runaway script must not drain purchases one call after another. */
const LIMIT = { max: 30, windowSeconds: 600 };

/**
 * Admin › Refund: a completed purchase, fully or in part, through the provider it was paid with.
 * The database reserves the amount and writes the audit entry as the admin (private.begin_refund);
 * the provider then makes the refund, and the ledger books it once, with a credit note.
 */
export async function refundPurchase(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c);
  if (caller instanceof Response) return caller;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const parsed = refundPurchaseSchema.safeParse(read.body);
  if (!parsed.success) return invalid(c, parsed.error);
  const limited = await overLimit(
    deps,
    c,
    `refund-purchase:user:${caller.userId}`,
    LIMIT,
    (wait) => `Too many refunds. Please try again in ${Math.ceil(wait / 60)} minutes.`,
  );
  if (limited) return limited;
  const { purchase_id: purchaseId, amount, reason } = parsed.data;
  const cents = Math.round(amount * 100);
  try {
    const reserved = await withClaims(deps.db, callerContext(deps, c, caller), (tx) => reserveRefund(tx, purchaseId, cents, reason || null));
    const result = await makeRefund(deps, purchaseId, reserved, cents);
    if (result.status === 'refused' || result.status === 'held') return fail(c, 502, result.reason);
    return c.json({ refund_id: reserved.refund_id, status: result.status, credit_note: result.creditNote ?? null });
  } catch (e) {
    if (e instanceof RefundRefused) return fail(c, e.status, e.message);
    if (e instanceof PaymentProviderError) {
      deps.logger.warn('refund not answered', { purchase_id: purchaseId, error: e.message });
      if (!e.transient) return fail(c, 502, `${e.message}. Nothing was refunded.`);
      return fail(
        c,
        503,
        `${e.message}. The refund may have been made: it is booked when the provider confirms it. Refunding the same amount again asks once more, and is never made twice.`,
      );
    }
    throw e;
  }
}

import { isDbError, type Queryable } from '../db/database';
import { refundMail } from '../mail/templates/refund';
import { PAYMENT_MISMATCH_SUBJECT, paymentMismatchParagraphs } from '../../shared/payment-mismatch';
import { alertAdmins, type Mismatch } from './mismatch';
import { CRYPTO_PROVIDER } from '../../shared/crypto-payments';
import { centsToDollars, PaymentProviderError, type Money, type RefundResult, type WebhookEvent } from './provider';
import type { SettleDeps } from './settle';

type Booked = {
  outcome: 'booked' | 'already' | 'unknown';
  refund_id?: string;
  user_id?: string;
  amount?: string;
  kind?: 'refund' | 'reversal';
  credit_note?: string;
  balance?: string;
};

export type BookedRefund = Booked | Mismatch;

type Booking = { purchaseId: string; ourRefundId: string | null; providerRefundId: string; amount: Money; kind: 'refund' | 'reversal' };

/**
 * Books money that went back to the buyer, once (see private.book_refund): the debit, the credit
 * note, and the customer's mail, which is queued only by the call that booked. A refund or
 * reversal in another currency, or of an amount the purchase cannot give back, debits nothing: it
 * is held and the admins are alerted.
 */
export async function bookRefund(deps: SettleDeps, b: Booking): Promise<BookedRefund> {
  const r = await deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ r: BookedRefund }>('select private.book_refund($1, $2, $3, $4, $5, $6, $7) as r', [
      b.purchaseId,
      b.ourRefundId,
      b.providerRefundId,
      b.amount.currency,
      b.amount.value,
      b.kind,
      deps.seller,
    ]);
    const booked = rows[0]!.r;
    if (booked.outcome === 'mismatch') await alertAdmins(deps, tx, booked);
    return booked;
  });
  if (r.outcome !== 'booked') return r;
  deps.logger.info('refund booked', { purchase_id: b.purchaseId, refund_id: r.refund_id, kind: r.kind });
  // A reversal can take credit that was already spent; the admin area flags the account.
  if (Number(r.balance) < 0) deps.logger.warn('balance negative after a refund', { user_id: r.user_id, refund_id: r.refund_id });
  await queueRefundMail(deps, r);
  return r;
}

/**
 * A provider's refund or reversal event, booked against the purchase it names when that is ours:
 * through our own refund when it carries its id, otherwise by the capture or the order.
 */
export async function bookRefundEvent(deps: SettleDeps, event: Extract<WebhookEvent, { kind: 'refunded' }>): Promise<BookedRefund> {
  const { rows } = await deps.db.query<{ id: string }>(
    `select purchase_id as id from public.credit_refunds where id = $3::uuid
     union all
     select id from public.credit_purchases
      where ($1::text is not null and provider_capture_id = $1) or ($2::text is not null and provider_order_id = $2)
     limit 1`,
    [event.captureId, event.orderId, event.ourRefundId],
  );
  if (!rows[0]) return { outcome: 'unknown' };
  return bookRefund(deps, {
    purchaseId: rows[0].id,
    ourRefundId: event.ourRefundId,
    providerRefundId: event.refundId,
    amount: event.amount,
    kind: event.reversal ? 'reversal' : 'refund',
  });
}

/** An admin's refund, as private.begin_refund reserved it. */
type Reserved = { refund_id: string; provider: string; order_id: string | null; capture_id: string | null };

export class RefundRefused extends Error {
  constructor(
    message: string,
    readonly status: 403 | 404 | 409,
  ) {
    super(message);
    this.name = 'RefundRefused';
  }
}

/**
 * Reserves an admin's refund in the caller's transaction (`tx` carries the admin's claims): the
 * database checks the caller, the purchase and what is left to refund, and writes the audit entry.
 */
export async function reserveRefund(tx: Queryable, purchaseId: string, cents: number, reason: string | null): Promise<Reserved> {
  try {
    const { rows } = await tx.query<{ r: Reserved }>('select private.begin_refund($1, $2, $3) as r', [purchaseId, cents, reason]);
    return rows[0]!.r;
  } catch (e) {
    if (!isDbError(e)) throw e;
    if (e.code === '42501') throw new RefundRefused(e.message, 403);
    if (e.code === 'P0002') throw new RefundRefused(e.message, 404);
    if (e.code === '22023') throw new RefundRefused(e.message, 409);
    throw e;
  }
}

/**
 * Asks the provider for a reserved refund and books what it answers. A refusal frees the
 * reservation; a refund the provider accepted for later stays pending until its webhook books it.
 * When the provider does not answer, the refund may have been made: it stays reserved, its
 * webhook books it, and an admin's retry of the same amount asks again under the same id.
 */
export async function makeRefund(
  deps: SettleDeps,
  purchaseId: string,
  reserved: Reserved,
  cents: number,
): Promise<(RefundResult & { creditNote?: string }) | { status: 'held'; reason: string }> {
  const fail = (reason: string) => deps.db.query('select private.fail_refund($1, $2)', [reserved.refund_id, reason]);
  let result: RefundResult;
  try {
    result = await askForRefund(deps, reserved, cents);
  } catch (e) {
    const reason = e instanceof Error ? e.message : String(e);
    if (e instanceof PaymentProviderError && e.transient) await deps.db.query('select private.refund_outcome_unknown($1, $2)', [reserved.refund_id, reason]);
    else await fail(reason);
    throw e;
  }
  if (result.status === 'refused') {
    await fail(result.reason);
    return result;
  }
  // The provider's refund events name the capture: a purchase paid before it was kept learns it now.
  if (result.captureId) {
    await deps.db.query('update public.credit_purchases set provider_capture_id = $2 where id = $1 and provider_capture_id is null', [
      purchaseId,
      result.captureId,
    ]);
  }
  if (result.status === 'pending') return result;
  const booked = await bookRefund(deps, {
    purchaseId,
    ourRefundId: reserved.refund_id,
    providerRefundId: result.providerRefundId,
    amount: result.refunded,
    kind: 'refund',
  });
  // PayPal refunded other than we asked: the admin is told what, in the alert's words.
  if (booked.outcome === 'mismatch')
    return { status: 'held', reason: booked.first ? paymentMismatchParagraphs(booked).slice(0, 2).join(' ') : PAYMENT_MISMATCH_SUBJECT };
  return { ...result, ...(booked.credit_note ? { creditNote: booked.credit_note } : {}) };
}

/**
 * The refund made: by the provider that took the payment, or, for a crypto top-up, by the admin
 * outside the processor, which cannot send coins back for us (decision 050): booked as made, with
 * its credit note and ledger entries.
 */
async function askForRefund(deps: SettleDeps, reserved: Reserved, cents: number): Promise<RefundResult> {
  if (reserved.provider === CRYPTO_PROVIDER) {
    return {
      status: 'completed',
      providerRefundId: `MANUAL-${reserved.refund_id}`,
      refunded: { currency: 'USD', value: centsToDollars(cents) },
      captureId: null,
    };
  }
  if (reserved.provider !== deps.payments.name || !reserved.order_id) {
    return { status: 'refused', reason: `This purchase was paid through ${reserved.provider}, which is not the payment provider configured now` };
  }
  return deps.payments.refund({ orderId: reserved.order_id, captureId: reserved.capture_id, cents, refundId: reserved.refund_id });
}

/** The customer's mail for a booked refund or reversal. Best effort: the booking stands if this fails. */
async function queueRefundMail(deps: SettleDeps, r: Booked): Promise<void> {
  try {
    const { rows } = await deps.db.query<{ email: string | null }>('select email from auth.users where id = $1', [r.user_id]);
    const to = rows[0]?.email;
    if (!to) return;
    const mail = refundMail({ to, amount: r.amount!, balance: r.balance!, reversal: r.kind === 'reversal', creditNote: r.credit_note! });
    await deps.mailer.queue(deps.db, mail, { key: `refund:${r.refund_id}` });
  } catch (e) {
    deps.logger.warn('refund mail not queued', { refund_id: r.refund_id, error: e instanceof Error ? e.message : String(e) });
  }
}

import { auditActionLabel } from './audit-actions';

/**
 * A capture, refund or reversal whose currency or amount was not what our order says, as the
 * database reports it (private.record_payment_mismatch, decision 031). Nothing was credited or
 * debited for it.
 */
export type PaymentMismatch = {
  what: 'capture' | 'refund' | 'reversal';
  /** The provider's capture or refund id. */
  reference: string;
  order_id: string | null;
  user_email: string | null;
  /** "JPY 9.00": the provider's currency and value, as it wrote them. */
  reported: string;
  /** What would have matched: exactly `expected`, at most `expected`, or nothing (the purchase was never credited). */
  expectation: 'exactly' | 'at_most' | 'nothing';
  /** "USD 9.00". */
  expected: string;
};

export const PAYMENT_MISMATCH_SUBJECT = 'A PayPal payment did not match its order';

/** The admins' alert, in paragraphs: what PayPal reported, what we expected, and what was (not) done. */
export function paymentMismatchParagraphs(m: PaymentMismatch): string[] {
  const expected =
    m.expectation === 'nothing'
      ? 'its purchase was never credited, so there was nothing to take back'
      : m.what === 'capture'
        ? `the order was for exactly ${m.expected}`
        : m.expectation === 'exactly'
          ? `we asked for exactly ${m.expected}`
          : `at most ${m.expected} of the purchase was left to refund`;
  const account = m.user_email ?? 'a closed account';
  return [
    `PayPal reported ${m.reported} for its ${m.what} ${m.reference}${m.order_id ? ` of order ${m.order_id}` : ''}, but ${expected}.`,
    m.what === 'capture'
      ? `Nothing was credited to ${account} for it, and the purchase, if it was still pending, is closed as rejected.`
      : `Nothing was debited from ${account}. The ${m.what} is held: what it may have taken cannot be refunded again until it is settled.`,
    `Look at the payment in PayPal and settle it there by hand. The audit log has the entry "${auditActionLabel('purchase.payment_mismatch')}".`,
  ];
}

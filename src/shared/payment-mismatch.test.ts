import { describe, expect, it } from 'vitest';
import { auditActionLabel } from './audit-actions';
import { PAYMENT_MISMATCH_SUBJECT, paymentMismatchParagraphs, type PaymentMismatch } from './payment-mismatch';

const capture: PaymentMismatch = {
  what: 'capture',
  reference: 'CAPTURE1',
  order_id: 'ORDER1',
  user_email: 'ada@example.com',
  reported: 'JPY 9',
  expectation: 'exactly',
  expected: 'USD 9.00',
};
const settle = 'Look at the payment in PayPal and settle it there by hand. The audit log has the entry "Payment did not match its order".';

describe("the admins' alert of a payment that did not match its order", () => {
  it('names the audit action in words', () => {
    expect(auditActionLabel('purchase.payment_mismatch')).toBe('Payment did not match its order');
    expect(PAYMENT_MISMATCH_SUBJECT).toBe('A PayPal payment did not match its order');
  });

  it('says what PayPal captured, what the order was for, and that nothing was credited', () => {
    expect(paymentMismatchParagraphs(capture)).toEqual([
      'PayPal reported JPY 9 for its capture CAPTURE1 of order ORDER1, but the order was for exactly USD 9.00.',
      'Nothing was credited to ada@example.com for it, and the purchase, if it was still pending, is closed as rejected.',
      settle,
    ]);
  });

  it('says what a refund or reversal could have been, and that nothing was debited', () => {
    const refund: PaymentMismatch = { ...capture, what: 'refund', reference: 'REFUND1', reported: 'USD 4.01', expected: 'USD 4.00' };
    expect(paymentMismatchParagraphs(refund)).toEqual([
      'PayPal reported USD 4.01 for its refund REFUND1 of order ORDER1, but we asked for exactly USD 4.00.',
      'Nothing was debited from ada@example.com. The refund is held: what it may have taken cannot be refunded again until it is settled.',
      settle,
    ]);
    const reversal: PaymentMismatch = { ...refund, what: 'reversal', order_id: null, user_email: null, expectation: 'at_most', expected: 'USD 6.00' };
    expect(paymentMismatchParagraphs(reversal).slice(0, 2)).toEqual([
      'PayPal reported USD 4.01 for its reversal REFUND1, but at most USD 6.00 of the purchase was left to refund.',
      'Nothing was debited from a closed account. The reversal is held: what it may have taken cannot be refunded again until it is settled.',
    ]);
    expect(paymentMismatchParagraphs({ ...refund, expectation: 'nothing', expected: 'USD 0.00' })[0]).toBe(
      'PayPal reported USD 4.01 for its refund REFUND1 of order ORDER1, but its purchase was never credited, so there was nothing to take back.',
    );
  });
});

import { PAYMENT_MISMATCH_SUBJECT, paymentMismatchParagraphs, type PaymentMismatch } from '../../../shared/payment-mismatch';
import type { Mail } from '../mailer';
import { paragraphsMail } from './layout';

/** Tells an admin that a payment did not match its order and was neither credited nor debited. */
export function paymentMismatchMail(to: string, mismatch: PaymentMismatch): Mail {
  return paragraphsMail(to, PAYMENT_MISMATCH_SUBJECT, paymentMismatchParagraphs(mismatch));
}

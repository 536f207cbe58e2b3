import type { Mail } from '../mailer';
import { money, paragraphsMail, withDocument } from './layout';

/**
 * For the payments flow: a completed purchase has reached the balance. A purchase through the
 * built-in test provider says so, so that no one mistakes its credit for a payment. The receipt's
 * PDF goes with it, drawn when the mail is sent.
 */
export function paymentReceivedMail({
  to,
  amount,
  balance,
  test,
  receipt,
}: {
  to: string;
  amount: string | number;
  balance: string | number;
  test: boolean;
  receipt: string;
}): Mail {
  const subject = `We received your payment of ${money(amount)}`;
  const paragraphs = [
    `Thank you: ${money(amount)} has been added to your NodeHarbor credit.`,
    `Your balance is now ${money(balance)}. Funds never expire.`,
    `Receipt ${receipt} is attached; you can download it again from Billing › Purchase History.`,
  ];
  const mail = test
    ? paragraphsMail(to, `[TEST] ${subject}`, [
        'TEST payment — no money was taken. It was approved on the built-in test payment provider, not paid through a real one.',
        ...paragraphs,
      ])
    : paragraphsMail(to, subject, paragraphs);
  return withDocument(mail, receipt);
}

import type { Mail } from '../mailer';
import { money, paragraphsMail } from './layout';

/**
 * For the payments flow: a completed purchase has reached the balance. A purchase through the
 * built-in test provider says so, so that no one mistakes its credit for a payment.
 */
export function paymentReceivedMail({ to, amount, balance, test }: { to: string; amount: string | number; balance: string | number; test: boolean }): Mail {
  const subject = `We received your payment of ${money(amount)}`;
  const paragraphs = [`Thank you: ${money(amount)} has been added to your NodeHarbor credit.`, `Your balance is now ${money(balance)}. Funds never expire.`];
  if (!test) return paragraphsMail(to, subject, paragraphs);
  return paragraphsMail(to, `[TEST] ${subject}`, [
    'TEST payment — no money was taken. It was approved on the built-in test payment provider, not paid through a real one.',
    ...paragraphs,
  ]);
}

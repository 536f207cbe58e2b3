import type { Mail } from '../mailer';
import { money, paragraphsMail } from './layout';

/** For the payments flow: a completed purchase has reached the balance. */
export function paymentReceivedMail({ to, amount, balance }: { to: string; amount: string | number; balance: string | number }): Mail {
  return paragraphsMail(to, `We received your payment of ${money(amount)}`, [
    `Thank you: ${money(amount)} has been added to your NodeHarbor credit.`,
    `Your balance is now ${money(balance)}. Funds never expire.`,
  ]);
}

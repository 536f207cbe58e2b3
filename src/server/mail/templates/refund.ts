import type { Mail } from '../mailer';
import { money, paragraphsMail } from './layout';

/** Money went back to the buyer: a refund we made, or a reversal the payment provider made. */
export function refundMail({ to, amount, balance, reversal, creditNote }: { to: string; amount: string; balance: string; reversal: boolean; creditNote: string }): Mail {
  const owes = Number(balance) < 0;
  return paragraphsMail(to, reversal ? `A payment of ${money(amount)} was reversed` : `We refunded ${money(amount)}`, [
    reversal
      ? `PayPal reversed ${money(amount)} of your payment, and the same amount has been taken from your NodeHarbor credit.`
      : `We refunded ${money(amount)} to your payment method, and the same amount has been taken from your NodeHarbor credit.`,
    `Credit note ${creditNote} records it; you can download it from Billing › Purchase History.`,
    owes
      ? `Your balance is now ${money(balance)}. Services do not renew until a top-up brings it back above their price.`
      : `Your balance is now ${money(balance)}.`,
  ]);
}

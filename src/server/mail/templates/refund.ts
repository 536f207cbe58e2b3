import type { Mail } from '../mailer';
import { money, paragraphsMail, withDocument } from './layout';

/** Money went back to the buyer: a refund we made, or a reversal the payment provider made; its credit note goes with it. */
export function refundMail({
  to,
  amount,
  balance,
  reversal,
  creditNote,
}: {
  to: string;
  amount: string;
  balance: string;
  reversal: boolean;
  creditNote: string;
}): Mail {
  const owes = Number(balance) < 0;
  const mail = paragraphsMail(to, reversal ? `A payment of ${money(amount)} was reversed` : `We refunded ${money(amount)}`, [
    reversal
      ? `PayPal reversed ${money(amount)} of your payment, and the same amount has been taken from your NodeHarbor credit.`
      : `We refunded ${money(amount)} to your payment method, and the same amount has been taken from your NodeHarbor credit.`,
    `Credit note ${creditNote} is attached; you can download it again from Billing › Purchase History.`,
    owes
      ? `Your balance is now ${money(balance)}. Services do not renew until a top-up brings it back above their price.`
      : `Your balance is now ${money(balance)}.`,
  ]);
  return withDocument(mail, creditNote);
}

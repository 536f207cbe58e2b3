import type { Mail } from '../mailer';
import { day, money, paragraphsMail } from './layout';

/** A few days before a suspended service is terminated. */
export function terminationReminderMail({
  to,
  name,
  price,
  balance,
  terminatesAt,
}: {
  to: string;
  name: string;
  price: string;
  balance: string;
  terminatesAt: Date;
}): Mail {
  const needed = Math.max(Number(price) - Number(balance), 0);
  return paragraphsMail(to, `Your ${name} service will be terminated on ${day(terminatesAt)}`, [
    `Your service ${name} is suspended, and on ${day(terminatesAt)} it will be terminated and its node removed.`,
    `Add at least ${money(needed)} from Billing to keep it: the service renews on its own and its node starts again.`,
  ]);
}

import type { Mail } from '../mailer';
import { day, money, paragraphsMail } from './layout';

/** At suspension: what the renewal costs, what is missing, and the day the service is terminated. */
export function suspensionMail({
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
  return paragraphsMail(to, `Your ${name} service is suspended`, [
    `Your service ${name} could not be renewed: it costs ${money(price)} and your balance is ${money(balance)}. Its node has been stopped, and is kept until ${day(terminatesAt)}.`,
    `Add at least ${money(needed)} from Billing before then: the service renews on its own and the same node starts again. Otherwise it is terminated on ${day(terminatesAt)} and its node removed.`,
  ]);
}

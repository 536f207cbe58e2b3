import type { Mail } from '../mailer';
import { money, paragraphsMail } from './layout';

export function expiryMail({ to, name, price, balance }: { to: string; name: string; price: string; balance: string }): Mail {
  return paragraphsMail(to, `Your service ${name} has expired`, [
    `Your service ${name} could not be renewed: it costs ${money(price)} and your balance is ${money(balance)}. Its node has been stopped.`,
    'Add credit and extend the service from your dashboard to start it again.',
  ]);
}

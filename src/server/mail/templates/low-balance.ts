import type { Mail } from '../mailer';
import { day, money, paragraphsMail } from './layout';

export function lowBalanceMail({ to, name, price, balance, renewsAt }: { to: string; name: string; price: string; balance: string; renewsAt: Date }): Mail {
  return paragraphsMail(to, `Add credit to keep ${name} running`, [
    `Your service ${name} renews on ${day(renewsAt)} for ${money(price)}, but your balance is ${money(balance)}.`,
    'Without more credit by then, the service will be suspended and its node stopped. You can add credit from Billing.',
  ]);
}

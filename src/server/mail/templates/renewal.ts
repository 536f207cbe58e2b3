import type { Mail } from '../mailer';
import { day, money, paragraphsMail } from './layout';

export function renewalMail({ to, name, amount, renewsAt }: { to: string; name: string; amount: string; renewsAt: Date }): Mail {
  return paragraphsMail(to, `Your service ${name} has been renewed`, [
    `Your service ${name} has been renewed: ${money(amount)} was taken from your credit.`,
    `Its next renewal is on ${day(renewsAt)}.`,
  ]);
}

import type { Mail } from '../mailer';
import { paragraphsMail } from './layout';

export function serviceCreatedMail({ to, name }: { to: string; name: string }): Mail {
  return paragraphsMail(to, `Your service ${name} is being set up`, [
    `Your service ${name} is installing. It will be active within about 10 minutes; you can follow it on your dashboard.`,
  ]);
}

import type { Mail } from '../mailer';
import { paragraphsMail } from './layout';

export function serviceDeletedMail({ to, name }: { to: string; name: string }): Mail {
  return paragraphsMail(to, `Your service ${name} has been deleted`, [
    `Your service ${name} has been moved to trash. If its paid period has not ended, you can reuse it for a new service from Billing.`,
  ]);
}

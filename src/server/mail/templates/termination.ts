import type { Mail } from '../mailer';
import { paragraphsMail } from './layout';

/** When a suspension ended unpaid. */
export function terminationMail({ to, name }: { to: string; name: string }): Mail {
  return paragraphsMail(to, `Your ${name} service has been terminated`, [
    `Your service ${name} was suspended without enough credit to renew it, and has now been terminated. Its node has been removed.`,
    'You can create a new service from your dashboard at any time.',
  ]);
}

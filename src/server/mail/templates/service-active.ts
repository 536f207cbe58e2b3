import type { Mail } from '../mailer';
import { day, paragraphsMail } from './layout';

/** The node of a new or reused service has finished installing and runs: its paid period starts now. */
export function serviceActiveMail({ to, name, paidUntil, url }: { to: string; name: string; paidUntil: Date | null; url: string }): Mail {
  return paragraphsMail(to, `Your service ${name} is active`, [
    `The node of your service ${name} is installed and running.`,
    paidUntil
      ? `Its paid period started when the node first ran and lasts until ${day(paidUntil)}. It then renews automatically if your balance covers its price.`
      : 'It is a one-time service: it does not renew.',
    `Its state, uptime and logs: ${url}`,
  ]);
}

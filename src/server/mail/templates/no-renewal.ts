import type { Mail } from '../mailer';
import { day, paragraphsMail } from './layout';

/** A few days before the end of a service whose owner turned automatic renewal off. */
export function noRenewalMail({ to, name, endsAt }: { to: string; name: string; endsAt: Date }): Mail {
  return paragraphsMail(to, `Your service ${name} will not renew`, [
    `Automatic renewal is off for your service ${name}, so it will not renew: it ends with its paid period on ${day(endsAt)}, its node is then stopped, and nothing more is charged.`,
    'To keep it running, turn on Renew automatically on its page in your dashboard before then. Once it has ended, you can still extend it to start it again.',
  ]);
}

/** At the end of a service whose owner turned automatic renewal off: it expired, uncharged. */
export function endedMail({ to, name }: { to: string; name: string }): Mail {
  return paragraphsMail(to, `Your service ${name} has expired`, [
    `Your service ${name} has reached the end of its paid period and, as automatic renewal was off, it was not renewed: nothing was charged. Its node has been stopped.`,
    'Extend the service from your dashboard to start it again.',
  ]);
}

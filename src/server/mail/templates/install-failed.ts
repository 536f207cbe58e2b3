import type { Mail } from '../mailer';
import { paragraphsMail } from './layout';

export function installFailedMail({ to, name, reason }: { to: string; name: string; reason: string }): Mail {
  return paragraphsMail(to, `The installation of ${name} failed`, [
    `We could not start the node of your service ${name}. The reason given: ${reason}`,
    'Your paid period starts only when the node first runs, so no time has been charged. You can retry the installation or delete the service from your dashboard.',
  ]);
}

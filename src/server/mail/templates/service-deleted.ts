import type { Mail } from '../mailer';
import { paragraphsMail } from './layout';

export function serviceDeletedMail({ to, name }: { to: string; name: string }): Mail {
  return paragraphsMail(to, `Your service ${name} has been deleted`, [
    `Your service ${name} has been moved to trash.`,
    // Reuse happens in the create dialog (spec §4, Creating), not on the Billing page that lists it.
    'If its paid period has not ended, the time left is not lost: choose New Service on your Services page and pick the same plan, and the new service reuses it at no charge. Billing lists the purchased services you can reuse.',
  ]);
}

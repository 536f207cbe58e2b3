import { failedInstallTexts } from '../../../shared/failed-install';
import { installFailureText, type InstallFailureCause } from '../../../shared/install-failure';
import type { Mail } from '../mailer';
import { money, paragraphsMail } from './layout';

/**
 * An installation failed, told by its cause in the owner's words: the engine's reason is the
 * admins' (issue 36, item 7). `refunded`: what came back to the balance for it (its charge), and the
 * balance now; null when it was not charged (a reused purchased service, a free plan), whose
 * period is kept for the node's first run.
 */
export function installFailedMail({
  to,
  name,
  cause,
  refunded = null,
}: {
  to: string;
  name: string;
  cause: InstallFailureCause;
  refunded?: { amount: string; balance: string } | null;
}): Mail {
  return paragraphsMail(
    to,
    `The installation of ${name} failed`,
    refunded
      ? [
          `Your service ${name} could not be installed. ${installFailureText(cause)}`,
          `The ${money(refunded.amount)} it cost has come back to your NodeHarbor credit: a failed installation costs nothing. Billing shows it as “${failedInstallTexts.refundDescription(name)}”, and your balance is now ${money(refunded.balance)}.`,
          'You can retry the installation from your dashboard, which charges its price again once you confirm, or delete the service.',
        ]
      : [
          `Your service ${name} could not be installed. ${installFailureText(cause)}`,
          'Nothing has been charged for it: its paid period starts only when the node first runs. You can retry the installation or delete the service from your dashboard.',
        ],
  );
}

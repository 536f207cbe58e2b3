import type { Mail } from '../mailer';
import { money, paragraphsMail } from './layout';

/** The balance went below the threshold its owner set (Settings › Notifications): once a crossing. */
export function balanceBelowThresholdMail({ to, balance, threshold, url }: { to: string; balance: string; threshold: string; url: string }): Mail {
  return paragraphsMail(to, `Your NodeHarbor balance is below ${money(threshold)}`, [
    `Your NodeHarbor credit is now ${money(balance)}, below the ${money(threshold)} you asked to be told about.`,
    `Renewals are paid from it: add credit in Billing to keep your services running: ${url}`,
  ]);
}

import { statementMonthName } from '../../../shared/statements';
import type { Mail } from '../mailer';
import { paragraphsMail } from './layout';

/** On the 1st: last month's statement can be downloaded (Billing › Statements). */
export function statementReadyMail({ to, month, url }: { to: string; month: string; url: string }): Mail {
  const name = statementMonthName(month);
  return paragraphsMail(to, `Your NodeHarbor statement for ${name} is ready`, [
    `Your statement for ${name} lists every payment, charge, refund and credit on your account that month, with your opening and closing balance.`,
    `Download it as a PDF or a CSV in Billing › Statements: ${url}`,
  ]);
}

import { htmlText } from '../html';
import type { Mail } from '../mailer';

/** The reset link of a password recovery; it works for an hour. */
export function passwordRecoveryMail({ to, link }: { to: string; link: string }): Mail {
  return {
    to,
    subject: 'Reset your NodeHarbor password',
    text: [
      'Someone asked to reset the password of your NodeHarbor account.',
      '',
      `To choose a new password, open this link within an hour:`,
      link,
      '',
      'If it was not you, ignore this e-mail: your password stays as it is.',
    ].join('\n'),
    html: htmlText`<p>Someone asked to reset the password of your NodeHarbor account.</p>
<p><a href="${link}">Choose a new password</a> (the link works for an hour).</p>
<p>If it was not you, ignore this e-mail: your password stays as it is.</p>`,
  };
}

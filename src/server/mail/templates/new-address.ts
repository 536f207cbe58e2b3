import { htmlText } from '../html';
import type { Mail } from '../mailer';
import { paragraphsMail } from './layout';
import { describeBrowser } from './security-alert';

/** Where and when a sign-in attempt came from, as the owner reads it. */
type Attempt = { at: Date; ip: string; userAgent: string | undefined };

const when = (at: Date) => at.toLocaleString('en-US', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
const from = (a: Attempt) => `address ${a.ip}, ${describeBrowser(a.userAgent)}`;

/**
 * Tells the owner that failed sign-ins have locked their account for new addresses: someone may be
 * guessing. Sent when the lock engages, at most once a day, and never with a link in it.
 */
export function passwordGuessingMail(input: Attempt & { to: string; failures: number; minutes: number; resetUrl: string }): Mail {
  return paragraphsMail(input.to, 'Someone is trying to sign in to your NodeHarbor account', [
    `Sign-ins to your NodeHarbor account failed ${input.failures} times within ${input.minutes} minutes: someone may be guessing your password.`,
    `The last attempt: ${when(input.at)} UTC, from ${from(input)}.`,
    'Until the attempts stop, signing in from an address you have not used before also needs a link that we e-mail to you. Addresses you have signed in from work as usual.',
    `If it was you, there is nothing to do. If not, make sure your password is one you use nowhere else; you can choose a new one at ${input.resetUrl}.`,
  ]);
}

/**
 * The way through the lock for the owner at a new address: their right password was given there,
 * and this link, opened on that device and network within `minutes`, signs them in once.
 */
export function newAddressLinkMail(input: Attempt & { to: string; link: string; minutes: number; resetUrl: string; contactUrl: string }): Mail {
  const guessing = 'Someone has been entering wrong passwords for your NodeHarbor account, so signing in from a new address now also needs this e-mail.';
  const attempt = `Just now your correct password was given from ${from(input)}, on ${when(input.at)} UTC.`;
  const open = `Open it on that device, on the same network, within ${input.minutes} minutes. It works once.`;
  const notYou = `If it was not you, someone knows your password: do not open the link, reset your password now at ${input.resetUrl}, which also signs out every other device, and contact us at ${input.contactUrl}.`;
  return {
    to: input.to,
    subject: 'Was this you? Sign in to NodeHarbor from a new address',
    text: [guessing, '', attempt, '', `Was this you? Sign in from this address: ${input.link}`, open, '', notYou].join('\n'),
    html: htmlText`<p>${guessing}</p>
<p>${attempt}</p>
<p>Was this you? <a href="${input.link}">Sign in from this address</a>. ${open}</p>
<p>${notYou}</p>`,
  };
}

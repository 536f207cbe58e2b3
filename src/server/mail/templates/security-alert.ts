import { browserName } from '../../../shared/browser-name';
import type { Mail } from '../mailer';
import { paragraphsMail } from './layout';

export type SecurityEvent = 'password-changed' | 'factor-added' | 'factor-removed' | 'recovery-code-used' | 'new-device';

const what: Record<SecurityEvent, { subject: string; happened: string }> = {
  'password-changed': { subject: 'Your NodeHarbor password was changed', happened: 'The password of your NodeHarbor account was changed.' },
  'factor-added': {
    subject: 'A two-factor method was added to your NodeHarbor account',
    happened: 'A two-factor authentication method was added to your NodeHarbor account.',
  },
  'factor-removed': {
    subject: 'A two-factor method was removed from your NodeHarbor account',
    happened: 'A two-factor authentication method was removed from your NodeHarbor account.',
  },
  'recovery-code-used': {
    subject: 'A recovery code was used on your NodeHarbor account',
    happened: 'One of your recovery codes was used to sign in to your NodeHarbor account. It cannot be used again.',
  },
  'new-device': { subject: 'New sign-in to your NodeHarbor account', happened: 'Your NodeHarbor account was signed in to from a new device.' },
};

/** What the security e-mails say of a User-Agent that names no browser on the parser's list. */
export const UNKNOWN_BROWSER = 'an unknown browser';

/** "Firefox 128 on Linux", from a User-Agent header: never the header's own text. */
export function describeBrowser(userAgent: string | undefined): string {
  return browserName(userAgent, { version: true }) ?? UNKNOWN_BROWSER;
}

/**
 * Tells the owner that something changed their account's security: what, when (UTC), from which
 * address and browser, and what to do if it was not them.
 */
export function securityAlertMail(input: {
  to: string;
  event: SecurityEvent;
  at: Date;
  ip: string;
  userAgent: string | undefined;
  resetUrl: string;
  contactUrl: string;
}): Mail {
  const { subject, happened } = what[input.event];
  const when = input.at.toLocaleString('en-US', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
  return paragraphsMail(input.to, subject, [
    happened,
    `When: ${when} UTC. From: address ${input.ip}, ${describeBrowser(input.userAgent)}.`,
    'If it was you, there is nothing to do.',
    `If it was not you, reset your password now at ${input.resetUrl}, which also signs out every other device, and contact us at ${input.contactUrl}.`,
  ]);
}

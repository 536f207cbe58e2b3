import { describe, expect, it } from 'vitest';
import type { Mail } from '../mailer';
import { expiryMail } from './expiry';
import { installFailedMail } from './install-failed';
import { lowBalanceMail } from './low-balance';
import { endedMail, noRenewalMail } from './no-renewal';
import { newAddressLinkMail, passwordGuessingMail } from './new-address';
import { passwordRecoveryMail } from './password-recovery';
import { paymentReceivedMail } from './payment-received';
import { refundMail } from './refund';
import { renewalMail } from './renewal';
import { describeBrowser, securityAlertMail, UNKNOWN_BROWSER } from './security-alert';
import { serviceActiveMail } from './service-active';
import { serviceCreatedMail } from './service-created';
import { serviceDeletedMail } from './service-deleted';
import { suspensionMail } from './suspension';
import { terminationMail } from './termination';
import { terminationReminderMail } from './termination-reminder';

const to = 'ada@example.com';
const renewsAt = new Date('2026-12-24T23:30:00Z');

describe('mail templates', () => {
  // What each mail must say: its subject, and every paragraph of its text, word for word.
  it.each<[string, Mail, string, string[]]>([
    [
      'service created',
      serviceCreatedMail({ to, name: 'node-1' }),
      'Your service node-1 is being set up',
      ['Your service node-1 is installing. It will be active within about 10 minutes; you can follow it on your dashboard.'],
    ],
    [
      'service deleted',
      serviceDeletedMail({ to, name: 'node-1' }),
      'Your service node-1 has been deleted',
      [
        'Your service node-1 has been moved to trash.',
        'If its paid period has not ended, the time left is not lost: choose New Service on your Services page and pick the same plan, and the new service reuses it at no charge. Billing lists the purchased services you can reuse.',
      ],
    ],
    [
      'service active',
      serviceActiveMail({ to, name: 'node-1', paidUntil: renewsAt, url: 'https://x/dashboard/services/1' }),
      'Your service node-1 is active',
      [
        'The node of your service node-1 is installed and running.',
        'Its paid period started when the node first ran and lasts until December 24, 2026. It then renews automatically if your balance covers its price.',
        'Its state, uptime and logs: https://x/dashboard/services/1',
      ],
    ],
    [
      'renewal',
      renewalMail({ to, name: 'node-1', amount: '10.00', renewsAt }),
      'Your service node-1 has been renewed',
      ['Your service node-1 has been renewed: $10.00 was taken from your credit.', 'Its next renewal is on December 24, 2026.'],
    ],
    [
      'expiry',
      expiryMail({ to, name: 'node-1', price: '10.00', balance: '4.5' }),
      'Your service node-1 has expired',
      [
        'Your service node-1 could not be renewed: it costs $10.00 and your balance is $4.50. Its node has been stopped.',
        'Add credit and extend the service from your dashboard to start it again.',
      ],
    ],
    [
      'low balance',
      lowBalanceMail({ to, name: 'node-1', price: '10.00', balance: '0.00', renewsAt }),
      'Add credit to keep node-1 running',
      [
        'Your service node-1 renews on December 24, 2026 for $10.00, but your balance is $0.00.',
        'Without more credit by then, the service will be suspended and its node stopped. You can add credit from Billing.',
      ],
    ],
    [
      'will not renew',
      noRenewalMail({ to, name: 'node-1', endsAt: renewsAt }),
      'Your service node-1 will not renew',
      [
        'Automatic renewal is off for your service node-1, so it will not renew: it ends with its paid period on December 24, 2026, its node is then stopped, and nothing more is charged.',
        'To keep it running, turn on Renew automatically on its page in your dashboard before then. Once it has ended, you can still extend it to start it again.',
      ],
    ],
    [
      'ended, renewal off',
      endedMail({ to, name: 'node-1' }),
      'Your service node-1 has expired',
      [
        'Your service node-1 has reached the end of its paid period and, as automatic renewal was off, it was not renewed: nothing was charged. Its node has been stopped.',
        'Extend the service from your dashboard to start it again.',
      ],
    ],
    [
      'payment received',
      paymentReceivedMail({ to, amount: 25, balance: '30.5', test: false, receipt: 'NH-2026-000001' }),
      'We received your payment of $25.00',
      [
        'Thank you: $25.00 has been added to your NodeHarbor credit.',
        'Your balance is now $30.50. Funds never expire.',
        'Receipt NH-2026-000001 is attached; you can download it again from Billing › Purchase History.',
      ],
    ],
    [
      'refund',
      refundMail({ to, amount: '10.00', balance: '15.00', reversal: false, creditNote: 'NH-CN-2026-000001' }),
      'We refunded $10.00',
      [
        'We refunded $10.00 to your payment method, and the same amount has been taken from your NodeHarbor credit.',
        'Credit note NH-CN-2026-000001 is attached; you can download it again from Billing › Purchase History.',
        'Your balance is now $15.00.',
      ],
    ],
    [
      'reversal',
      refundMail({ to, amount: '10.00', balance: '-7.00', reversal: true, creditNote: 'NH-CN-2026-000002' }),
      'A payment of $10.00 was reversed',
      [
        'PayPal reversed $10.00 of your payment, and the same amount has been taken from your NodeHarbor credit.',
        'Credit note NH-CN-2026-000002 is attached; you can download it again from Billing › Purchase History.',
        'Your balance is now -$7.00. Services do not renew until a top-up brings it back above their price.',
      ],
    ],
    [
      'install failed, its charge given back',
      installFailedMail({ to, name: 'node-1', cause: 'not_started', refunded: { amount: '10.00', balance: '12.5' } }),
      'The installation of node-1 failed',
      [
        'Your service node-1 could not be installed. We could not start your node. We are looking into it.',
        'The $10.00 it cost has come back to your NodeHarbor credit: a failed installation costs nothing. Billing shows it as “Refund: installation of node-1 failed”, and your balance is now $12.50.',
        'You can retry the installation from your dashboard, which charges its price again once you confirm, or delete the service.',
      ],
    ],
    [
      'install failed, nothing charged (a reused purchased service)',
      installFailedMail({ to, name: 'node-1', cause: 'key_refused' }),
      'The installation of node-1 failed',
      [
        "Your service node-1 could not be installed. The node's network refused your key. Change the key, then retry the installation.",
        'Nothing has been charged for it: its paid period starts only when the node first runs. You can retry the installation or delete the service from your dashboard.',
      ],
    ],
    [
      'password recovery',
      passwordRecoveryMail({ to, link: 'https://x/verify' }),
      'Reset your NodeHarbor password',
      [
        'Someone asked to reset the password of your NodeHarbor account.',
        'To choose a new password, open this link within an hour:\nhttps://x/verify',
        'If it was not you, ignore this e-mail: your password stays as it is.',
      ],
    ],
  ])('%s: its subject and text, word for word', (_name, m, subject, paragraphs) => {
    expect(m.to).toBe(to);
    expect(m.subject).toBe(subject);
    expect(m.text.split('\n\n')).toEqual(paragraphs);
  });

  it('give each paragraph of the text as one HTML paragraph, a line apart, and nothing else', () => {
    expect(serviceDeletedMail({ to, name: 'a&b' }).html).toBe(
      '<p>Your service a&amp;b has been moved to trash.</p>\n<p>If its paid period has not ended, the time left is not lost: choose New Service on your Services page and pick the same plan, and the new service reuses it at no charge. Billing lists the purchased services you can reuse.</p>',
    );
  });

  it('address the mail, and give the same words in text and HTML', () => {
    const mails = [
      serviceCreatedMail({ to, name: 'node-1' }),
      serviceDeletedMail({ to, name: 'node-1' }),
      serviceActiveMail({ to, name: 'node-1', paidUntil: renewsAt, url: 'https://x/dashboard/services/1' }),
      serviceActiveMail({ to, name: 'node-1', paidUntil: null, url: 'https://x/dashboard/services/1' }),
      renewalMail({ to, name: 'node-1', amount: '10.00', renewsAt }),
      expiryMail({ to, name: 'node-1', price: '10.00', balance: '4.5' }),
      lowBalanceMail({ to, name: 'node-1', price: '10.00', balance: '0.00', renewsAt }),
      noRenewalMail({ to, name: 'node-1', endsAt: renewsAt }),
      endedMail({ to, name: 'node-1' }),
      suspensionMail({ to, name: 'node-1', price: '10.00', balance: '4.5', terminatesAt: renewsAt }),
      terminationReminderMail({ to, name: 'node-1', price: '10.00', balance: '4.5', terminatesAt: renewsAt }),
      terminationMail({ to, name: 'node-1' }),
      paymentReceivedMail({ to, amount: 25, balance: '30.5', test: false, receipt: 'NH-2026-000001' }),
      paymentReceivedMail({ to, amount: 25, balance: '30.5', test: true, receipt: 'NH-2026-000001' }),
      refundMail({ to, amount: '10.00', balance: '15.00', reversal: false, creditNote: 'NH-CN-2026-000001' }),
      refundMail({ to, amount: '10.00', balance: '-7.00', reversal: true, creditNote: 'NH-CN-2026-000002' }),
      installFailedMail({ to, name: 'node-1', cause: 'not_started' }),
      installFailedMail({ to, name: 'node-1', cause: 'not_started', refunded: { amount: '10.00', balance: '10.00' } }),
      securityAlertMail({ to, event: 'new-device', at: renewsAt, ip: '203.0.113.9', userAgent: undefined, resetUrl: 'https://x/r', contactUrl: 'https://x/c' }),
    ];
    for (const m of mails) {
      expect(m.to).toBe(to);
      for (const paragraph of m.text.split('\n\n')) expect(m.html).toContain(`<p>${paragraph}</p>`);
    }
  });

  it('tell a suspension: the amount needed and the day of termination, then a reminder, then the end', () => {
    const suspended = suspensionMail({ to, name: 'node-1', price: '10.00', balance: '4.5', terminatesAt: renewsAt });
    expect(suspended.subject).toBe('Your node-1 service is suspended');
    expect(suspended.text).toContain('it costs $10.00 and your balance is $4.50');
    expect(suspended.text).toContain('Add at least $5.50');
    expect(suspended.text).toContain('terminated on December 24, 2026');
    expect(suspended.text).toContain('the same node starts again');
    const reminder = terminationReminderMail({ to, name: 'node-1', price: '10.00', balance: '0', terminatesAt: renewsAt });
    expect(reminder.subject).toBe('Your node-1 service will be terminated on December 24, 2026');
    expect(reminder.text).toContain('Add at least $10.00');
    const ended = terminationMail({ to, name: 'node-1' });
    expect(ended.subject).toBe('Your node-1 service has been terminated');
    expect(ended.text).toContain('Its node has been removed.');
    expect(lowBalanceMail({ to, name: 'node-1', price: '10.00', balance: '0.00', renewsAt }).text).toContain('will be suspended and its node stopped');
  });

  it('write amounts in dollars and dates in UTC', () => {
    expect(paymentReceivedMail({ to, amount: 25, balance: '30.5', test: false, receipt: 'NH-2026-000001' })).toMatchObject({
      subject: 'We received your payment of $25.00',
      text: expect.stringContaining('Your balance is now $30.50.'),
    });
    expect(renewalMail({ to, name: 'n', amount: '10.00', renewsAt }).text).toContain('on December 24, 2026');
    expect(expiryMail({ to, name: 'n', price: '10.00', balance: '4.5' }).text).toContain('costs $10.00 and your balance is $4.50');
  });

  it('name the receipt of a payment, and attach it by its number, to be drawn when the mail is sent', () => {
    const attached = paymentReceivedMail({ to, amount: 25, balance: '30.5', test: false, receipt: 'NH-2026-000123' });
    expect(attached.text).toContain('Receipt NH-2026-000123 is attached; you can download it again from Billing › Purchase History.');
    expect(attached.attachments).toEqual([{ filename: 'NH-2026-000123.pdf', contentType: 'application/pdf', document: 'NH-2026-000123' }]);
  });

  it('tell a refund or a reversal, attach its credit note, and say what a negative balance means', () => {
    const refunded = refundMail({ to, amount: '10.00', balance: '15.00', reversal: false, creditNote: 'NH-CN-2026-000001' });
    expect(refunded.subject).toBe('We refunded $10.00');
    expect(refunded.text.split('\n\n')).toEqual([
      'We refunded $10.00 to your payment method, and the same amount has been taken from your NodeHarbor credit.',
      'Credit note NH-CN-2026-000001 is attached; you can download it again from Billing › Purchase History.',
      'Your balance is now $15.00.',
    ]);
    expect(refunded.attachments).toEqual([{ filename: 'NH-CN-2026-000001.pdf', contentType: 'application/pdf', document: 'NH-CN-2026-000001' }]);
    const reversed = refundMail({ to, amount: '10.00', balance: '-7.00', reversal: true, creditNote: 'NH-CN-2026-000002' });
    expect(reversed.subject).toBe('A payment of $10.00 was reversed');
    expect(reversed.text.split('\n\n')).toEqual([
      'PayPal reversed $10.00 of your payment, and the same amount has been taken from your NodeHarbor credit.',
      'Credit note NH-CN-2026-000002 is attached; you can download it again from Billing › Purchase History.',
      'Your balance is now -$7.00. Services do not renew until a top-up brings it back above their price.',
    ]);
    expect(reversed.attachments).toEqual([{ filename: 'NH-CN-2026-000002.pdf', contentType: 'application/pdf', document: 'NH-CN-2026-000002' }]);
  });

  it('say where a deleted service is reused: New Service, with the same plan', () => {
    const m = serviceDeletedMail({ to, name: 'node-1' });
    expect(m.subject).toBe('Your service node-1 has been deleted');
    expect(m.text.split('\n\n')).toEqual([
      'Your service node-1 has been moved to trash.',
      'If its paid period has not ended, the time left is not lost: choose New Service on your Services page and pick the same plan, and the new service reuses it at no charge. Billing lists the purchased services you can reuse.',
    ]);
  });

  it('tell that a node is active, until when it is paid, and where to watch it', () => {
    const m = serviceActiveMail({ to, name: 'node-1', paidUntil: renewsAt, url: 'https://x/dashboard/services/1' });
    expect(m.subject).toBe('Your service node-1 is active');
    expect(m.text.split('\n\n')).toEqual([
      'The node of your service node-1 is installed and running.',
      'Its paid period started when the node first ran and lasts until December 24, 2026. It then renews automatically if your balance covers its price.',
      'Its state, uptime and logs: https://x/dashboard/services/1',
    ]);
    expect(serviceActiveMail({ to, name: 'n', paidUntil: null, url: 'u' }).text).toContain('It is a one-time service: it does not renew.');
  });

  it('mark a payment through the test provider as TEST, in the subject and the first line', () => {
    const m = paymentReceivedMail({ to, amount: 25, balance: '30.5', test: true, receipt: 'NH-2026-000001' });
    expect(m.subject).toBe('[TEST] We received your payment of $25.00');
    expect(m.text.split('\n\n')[0]).toMatch(/^TEST payment — no money was taken\./);
    expect(m.text).toContain('Your balance is now $30.50.');
    expect(paymentReceivedMail({ to, amount: 25, balance: '30.5', test: false, receipt: 'NH-2026-000001' }).text).not.toContain('TEST');
  });

  it('escape what they put in HTML', () => {
    const m = serviceCreatedMail({ to, name: '<b>"x"&' });
    expect(m.html).toContain('&lt;b&gt;&quot;x&quot;&amp;');
    expect(m.html).not.toContain('<b>');
    const r = passwordRecoveryMail({ to, link: 'http://localhost/verify?a=1&b="2"' });
    expect(r.html).toContain('href="http://localhost/verify?a=1&amp;b=&quot;2&quot;"');
    expect(r.text).toContain('http://localhost/verify?a=1&b="2"');
  });

  it('say in security alerts what happened, when, from where and what to do, with the browser named', () => {
    const ua = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    expect(describeBrowser(ua)).toBe('Chrome 131 on Windows');
    expect(describeBrowser(undefined)).toBe(UNKNOWN_BROWSER);
    expect(describeBrowser('curl-ish')).toBe(UNKNOWN_BROWSER);
    const m = securityAlertMail({
      to,
      event: 'password-changed',
      at: renewsAt,
      ip: '203.0.113.9',
      userAgent: ua,
      resetUrl: 'https://x/reset-password',
      contactUrl: 'https://x/contact',
    });
    expect(m.text.split('\n\n')).toEqual([
      'The password of your NodeHarbor account was changed.',
      'When: December 24, 2026 at 11:30 PM UTC. From: address 203.0.113.9, Chrome 131 on Windows.',
      'If it was you, there is nothing to do.',
      'If it was not you, reset your password now at https://x/reset-password, which also signs out every other device, and contact us at https://x/contact.',
    ]);
    // A user agent is whatever the client sent: it reaches the HTML escaped.
    const hostile = securityAlertMail({ to, event: 'new-device', at: renewsAt, ip: '::1', userAgent: '<script>', resetUrl: 'r', contactUrl: 'c' });
    expect(hostile.html).not.toContain('<script>');
  });

  // Issue 42, item 3: such a User-Agent was named as the browser in a real "new sign-in" mail.
  it("name in security mails only a browser and system from the parser's lists, never the User-Agent's text", () => {
    const scam = 'Call +1-555-0100 visit https://evil.example/x (Windows NT 10.0; Win64; x64)';
    expect(describeBrowser('call +1-555-0100 visit https://evil.example now')).toBe(UNKNOWN_BROWSER);
    expect(describeBrowser(scam)).toBe(UNKNOWN_BROWSER);
    // A browser on the list with a version that is not a number: its name alone.
    const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
    expect(describeBrowser(`${chrome} OPR/visit-https://evil.example/`)).toBe('Opera on Windows');
    expect(describeBrowser(`${chrome} OPR/115.0.0.0`)).toBe('Opera 115 on Windows');
    const attempt = { to, at: renewsAt, ip: '198.51.100.7', userAgent: scam, resetUrl: 'https://x/reset-password', contactUrl: 'https://x/contact' };
    const mails = [
      securityAlertMail({ ...attempt, event: 'new-device' }),
      passwordGuessingMail({ ...attempt, failures: 10, minutes: 5 }),
      newAddressLinkMail({ ...attempt, link: 'https://x/login#address_token=abc', minutes: 15 }),
    ];
    for (const m of mails) {
      expect(m.text).toContain(`address 198.51.100.7, ${UNKNOWN_BROWSER}`);
      expect(`${m.subject}${m.text}${m.html}`).not.toMatch(/555|evil|visit/i);
    }
  });

  it('warn of guessing without a link, and give the way through a locked account only with the link and its terms', () => {
    const ua = 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0';
    const attempt = { to, at: renewsAt, ip: '198.51.100.7', userAgent: ua, resetUrl: 'https://x/reset-password' };
    const warning = passwordGuessingMail({ ...attempt, failures: 10, minutes: 5 });
    expect(warning.subject).toBe('Someone is trying to sign in to your NodeHarbor account');
    expect(warning.text.split('\n\n')).toEqual([
      'Sign-ins to your NodeHarbor account failed 10 times within 5 minutes: someone may be guessing your password.',
      'The last attempt: December 24, 2026 at 11:30 PM UTC, from address 198.51.100.7, Firefox 128 on Linux.',
      'Until the attempts stop, signing in from an address you have not used before also needs a link that we e-mail to you. Addresses you have signed in from work as usual.',
      'If it was you, there is nothing to do. If not, make sure your password is one you use nowhere else; you can choose a new one at https://x/reset-password.',
    ]);
    expect(warning.text).not.toContain('/login');

    const link = 'https://x/login#address_token=abc&x=<b>';
    const m = newAddressLinkMail({ ...attempt, link, minutes: 15, contactUrl: 'https://x/contact' });
    expect(m.subject).toBe('Was this you? Sign in to NodeHarbor from a new address');
    expect(m.text.split('\n\n')).toEqual([
      'Someone has been entering wrong passwords for your NodeHarbor account, so signing in from a new address now also needs this e-mail.',
      'Just now your correct password was given from address 198.51.100.7, Firefox 128 on Linux, on December 24, 2026 at 11:30 PM UTC.',
      `Was this you? Sign in from this address: ${link}\nOpen it on that device, on the same network, within 15 minutes. It works once.`,
      'If it was not you, someone knows your password: do not open the link, reset your password now at https://x/reset-password, which also signs out every other device, and contact us at https://x/contact.',
    ]);
    // The link is the HTML's one anchor, escaped as an attribute.
    expect(m.html).toContain('Was this you? <a href="https://x/login#address_token=abc&amp;x=&lt;b&gt;">Sign in from this address</a>.');
  });
});

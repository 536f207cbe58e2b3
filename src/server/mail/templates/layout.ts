import { documentFileName } from '../../../shared/billing-documents';
import { html, htmlText } from '../html';
import type { Mail } from '../mailer';

/** A mail from plain paragraphs: the text part joins them, the HTML part escapes each. */
export function paragraphsMail(to: string, subject: string, paragraphs: string[]): Mail {
  return {
    to,
    subject,
    text: paragraphs.join('\n\n'),
    html: htmlText`${paragraphs.map((p, i) => html`${i ? '\n' : ''}<p>${p}</p>`)}`,
  };
}

/** "$10.00" from a numeric as the database returns it ("10.00") or a number. */
export function money(amount: string | number): string {
  const n = Number(amount);
  // A balance a reversal took below zero reads "-$7.00", as the dashboard writes it.
  return `${n < 0 ? '-' : ''}$${Math.abs(n).toFixed(2)}`;
}

/** A date as people read it in a mail, in UTC so every reader sees the same day. */
export function day(at: Date | string): string {
  return new Date(at).toLocaleDateString('en-US', { year: 'numeric', month: 'long', day: 'numeric', timeZone: 'UTC' });
}

/** `mail` with the billing document numbered `number` attached as its PDF, drawn when the mail is sent. */
export function withDocument(mail: Mail, number: string): Mail {
  return { ...mail, attachments: [{ filename: documentFileName(number), contentType: 'application/pdf', document: number }] };
}

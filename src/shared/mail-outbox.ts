/** The mail outbox (nodeharbor.outbox) as the admin area shows it. */

export const OUTBOX_STATUSES = ['queued', 'kept', 'sent', 'failed'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

export const OUTBOX_STATUS_LABELS: Record<OutboxStatus, string> = {
  queued: 'Queued',
  // Without SMTP_URL a mail stays in the outbox: it was never meant to leave.
  kept: 'Kept (no SMTP)',
  sent: 'Sent',
  failed: 'Failed',
};

/** The web links in a mail's text, in order, each once: what an operator copies (a reset link). */
export function linksIn(text: string): string[] {
  // Punctuation that ends a sentence is not part of the link before it.
  return [...new Set((text.match(/https?:\/\/[^\s<>"]+/g) ?? []).map((l) => l.replace(/[.,;:!?)\]]+$/, '')))];
}

import type { NotificationEvent } from '../../shared/notifications';

/** One notification as every channel receives it; `id` stays the same across redeliveries. */
export type OutboundMessage = {
  /** The delivery's id (the Standard Webhooks `webhook-id`, `msg_…`). */
  id: string;
  /** 'test': "Send a test" (notification-test), a delivery only, never a preference. */
  event: NotificationEvent | 'test';
  /** A short line: "Node down: my-node". */
  title: string;
  /** The message's body as plain text. */
  text: string;
  /** Where to look (the service page, Billing). */
  url?: string;
  /** The event's facts for a webhook's JSON `data` (service id and name, amounts…); no secret. */
  data: Record<string, unknown>;
  occurredAt: Date;
};

/** Where a channel delivers, decrypted by the caller just before sending. */
export type ChannelTarget = { kind: 'discord'; url: string } | { kind: 'telegram'; chatId: string } | { kind: 'webhook'; url: string; secret: string };

/**
 * What one attempt gave: `status` is the answer's HTTP status when one came. A failed attempt is
 * `retry`able when another may succeed (a timeout, 429, 5xx), and not when it never will (404 of a
 * deleted Discord webhook, Telegram's "bot was blocked", an address the guard refuses).
 */
export type SendResult = { ok: true; status: number } | { ok: false; status: number | null; error: string; retry: boolean; retryAfterSeconds?: number };

export interface ChannelSender {
  send(target: ChannelTarget, message: OutboundMessage): Promise<SendResult>;
  /**
   * Checks a Discord or webhook URL before it is saved: its form, and every address its host
   * resolves to. Returns the customer's message (notificationMessages) or undefined when it may be saved.
   */
  checkUrl(kind: 'discord' | 'webhook', url: string): Promise<string | undefined>;
}

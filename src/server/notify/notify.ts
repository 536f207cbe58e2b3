import { randomBytes } from 'node:crypto';
import { ALWAYS_EMAILED, SERVICE_EVENTS, type NotificationEvent } from '../../shared/notifications';
import type { Queryable } from '../db/database';
import { enqueue } from '../jobs/queue';
import type { Mail, Mailer } from '../mail/mailer';
import type { OutboundMessage } from './channel-sender';

/** Attempts of one delivery (the queue's back-off: 2 s, 4 s … about 4 minutes in all), as for mail. */
export const DELIVERY_ATTEMPTS = 8;

/** What a channel's message says: the OutboundMessage but for its id and time, which the delivery gives. */
export type NoticeMessage = Pick<OutboundMessage, 'title' | 'text' | 'url' | 'data'>;

/** One event for one customer, as an event site tells it. */
export type Notice = {
  userId: string;
  /** The service it is about: its own mute applies (events of SERVICE_EVENTS only). */
  serviceId?: string;
  event: NotificationEvent;
  /**
   * The site's idempotency key (its mail key, e.g. `node-down:<incident>`): the mail and each
   * channel's delivery are recorded once per key, so a retried sweep notifies once. Without one
   * (a security notice, made once by its request) every call notifies.
   */
  key?: string;
  /** The e-mail, when the event has one. */
  mail?: Mail;
  message: NoticeMessage;
};

/** msg_ and 24 random bytes: the Standard Webhooks `webhook-id`, the same on every redelivery. */
export const newDeliveryId = () => `msg_${randomBytes(24).toString('base64url')}`;

/**
 * Tells the customer of `notice` on `q` (pass the transaction that records the event, so the
 * notice exists exactly when the event does): the mail through the outbox when e-mail is on for
 * the event and the service does not mute e-mail (security notices always), and a delivery with its
 * `deliver-notification` job for each active channel that has the event on and that the service
 * does not mute. Returns how many channel deliveries it recorded.
 */
export async function notify(q: Queryable, deps: { mailer: Mailer }, notice: Notice): Promise<number> {
  const serviceId = notice.serviceId && SERVICE_EVENTS.includes(notice.event) ? notice.serviceId : null;
  const { rows: off } = await q.query<{ channel: string }>(
    `select channel from private.notification_preferences where user_id = $1 and event = $2 and not enabled
     union
     select channel from private.service_notification_settings where service_id = $3 and user_id = $1 and not enabled`,
    [notice.userId, notice.event, serviceId],
  );
  const muted = new Set(off.map((r) => r.channel));
  if (notice.mail && (ALWAYS_EMAILED.includes(notice.event) || !muted.has('email'))) {
    await deps.mailer.queue(q, notice.mail, notice.key ? { key: notice.key } : {});
  }
  const { rows: channels } = await q.query<{ id: string }>(
    `select id from private.notification_channels where user_id = $1 and state = 'active' order by created_at`,
    [notice.userId],
  );
  const key = notice.key ?? `once:${newDeliveryId()}`;
  let queued = 0;
  for (const channel of channels.filter((c) => !muted.has(c.id))) {
    if (await queueDelivery(q, { channelId: channel.id, userId: notice.userId, event: notice.event, key: `${key}:${channel.id}`, message: notice.message })) {
      queued++;
    }
  }
  return queued;
}

/**
 * Records one delivery to one channel and enqueues its job, unless `key` was recorded before.
 * The delivery's id, or null for a repeated key.
 */
export async function queueDelivery(
  q: Queryable,
  d: { channelId: string; userId: string; event: NotificationEvent | 'test'; key: string; message: NoticeMessage },
): Promise<string | null> {
  const { rows } = await q.query<{ id: string }>(
    `insert into private.notification_deliveries (id, key, channel_id, user_id, event, message)
     values ($1, $2, $3, $4, $5, $6::jsonb)
     on conflict (key) do nothing returning id`,
    [newDeliveryId(), d.key, d.channelId, d.userId, d.event, JSON.stringify(d.message)],
  );
  const id = rows[0]?.id;
  if (!id) return null;
  // One more than the delivery's own count, which decides (deliver-notification.ts).
  await enqueue(q, 'deliver-notification', { deliveryId: id }, { key: `deliver-notification:${id}`, maxAttempts: DELIVERY_ATTEMPTS + 1 });
  return id;
}

/**
 * A channel's message from the site's e-mail, so that both say the same: its subject as the title,
 * its plain text as the body (never its attachments), `url` where to look, `data` the facts a
 * webhook's JSON carries.
 */
export function fromMail(mail: Mail, data: Record<string, unknown> = {}, url?: string): NoticeMessage {
  return { title: mail.subject, text: mail.text, ...(url ? { url } : {}), data };
}

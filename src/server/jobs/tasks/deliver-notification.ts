import { z } from 'zod';
import { FAILURES_BEFORE_DISABLED, type ChannelKind } from '../../../shared/notifications';
import { channelDisabledMail } from '../../mail/templates/channel-disabled';
import type { ChannelTarget, OutboundMessage } from '../../notify/channel-sender';
import { DELIVERY_ATTEMPTS, type NoticeMessage } from '../../notify/notify';
import { defineTask, NotYet, type JobDeps } from '../task';

type Delivery = {
  id: string;
  event: OutboundMessage['event'];
  message: NoticeMessage;
  occurred_at: Date;
  attempts: number;
  channel_id: string;
  state: string;
  target: string | null;
};

/** A rate limit's wait is honoured up to this; longer, the queue's back-off decides. */
const MAX_RETRY_AFTER_SECONDS = 3600;

/**
 * Sends one delivery (notify.ts recorded it) to its channel and logs the attempt. A failure that
 * another attempt may cure is retried with the queue's back-off, or after the wait a rate limit
 * asked for; one that none can (a deleted Discord webhook, a blocked bot, a refused address), and
 * the last of DELIVERY_ATTEMPTS, fail the delivery for good, which counts against its channel.
 */
export const deliverNotification = defineTask({
  name: 'deliver-notification',
  lane: 'upkeep',
  payload: z.object({ deliveryId: z.string().min(1).max(100) }),
  async run({ deliveryId }, deps) {
    // Counted before the send: an attempt a crash cut short still counts.
    const { rows } = await deps.db.query<Delivery>(
      `update private.notification_deliveries d set attempts = d.attempts + 1
         from private.notification_channels c
        where d.id = $1 and d.state = 'queued' and c.id = d.channel_id
       returning d.id, d.event, d.message, d.occurred_at, d.attempts, d.channel_id, c.state,
                 case when c.state = 'active' then private.decrypt_with_either_key(c.target_encrypted) end as target`,
      [deliveryId],
    );
    const d = rows[0];
    if (!d) return;
    if (d.state !== 'active' || !d.target) {
      // Disabled or waiting for its link since the event: nothing to send, and nothing to count.
      await deps.db.query(`update private.notification_deliveries set state = 'failed', finished_at = now() where id = $1`, [d.id]);
      return;
    }
    const result = await deps.channels.send(JSON.parse(d.target) as ChannelTarget, {
      id: d.id,
      event: d.event,
      ...d.message,
      occurredAt: new Date(d.occurred_at),
    });
    await deps.db.query(`insert into private.notification_attempts (channel_id, delivery_id, event, ok, status_code, error) values ($1, $2, $3, $4, $5, $6)`, [
      d.channel_id,
      d.id,
      d.event,
      result.ok,
      result.status,
      result.ok ? null : result.error.slice(0, 500),
    ]);
    if (result.ok) {
      await deps.db.query(
        `with sent as (update private.notification_deliveries set state = 'sent', finished_at = now() where id = $1 returning channel_id)
         update private.notification_channels c set failures = 0 from sent where c.id = sent.channel_id and c.failures <> 0`,
        [d.id],
      );
      return;
    }
    if (!result.retry || d.attempts >= DELIVERY_ATTEMPTS) return failedForGood(deps, d.id, result.error);
    if (result.retryAfterSeconds) throw new NotYet(result.error, Math.min(Math.max(1, Math.ceil(result.retryAfterSeconds)), MAX_RETRY_AFTER_SECONDS));
    throw new Error(result.error);
  },
  // The job used its attempts (the sender threw, or the worker died each time).
  async onFailed({ deliveryId }, deps, error) {
    await failedForGood(deps, deliveryId, error);
  },
});

/**
 * The delivery failed for good: its channel's failures count up (a test's do not), and the
 * FAILURES_BEFORE_DISABLED-th in a row disables the channel and tells its owner by e-mail.
 */
async function failedForGood(deps: Pick<JobDeps, 'db' | 'mailer' | 'publicUrl'>, deliveryId: string, reason: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: string; name: string; kind: ChannelKind; state: string; failures: number; email: string | null }>(
      `with d as (
         update private.notification_deliveries set state = 'failed', finished_at = now()
          where id = $1 and state = 'queued' and event <> 'test' returning channel_id
       ), c as (
         update private.notification_channels c
            set failures = c.failures + 1,
                state = case when c.state = 'active' and c.failures + 1 >= $2 then 'disabled' else c.state end,
                disabled_reason = case when c.state = 'active' and c.failures + 1 >= $2 then $3 else c.disabled_reason end
           from d where c.id = d.channel_id
         returning c.id, c.name, c.kind, c.state, c.failures, c.user_id
       )
       select c.id, c.name, c.kind, c.state, c.failures, u.email from c join auth.users u on u.id = c.user_id`,
      [deliveryId, FAILURES_BEFORE_DISABLED, reason.slice(0, 500)],
    );
    // A test that failed is only the delivery's: pressing "Send a test" never disables a channel.
    await tx.query(`update private.notification_deliveries set state = 'failed', finished_at = now() where id = $1 and state = 'queued'`, [deliveryId]);
    const c = rows[0];
    if (!c || c.state !== 'disabled' || c.failures !== FAILURES_BEFORE_DISABLED || !c.email) return;
    const mail = channelDisabledMail({ to: c.email, name: c.name, kind: c.kind, reason, url: `${deps.publicUrl}/dashboard/settings/notifications` });
    await deps.mailer.queue(tx, mail, { key: `notification-channel-disabled:${c.id}:${deliveryId}` });
  });
}

import type { RewardRule } from '../../../shared/node-health';
import type { Mail } from '../mailer';
import { paragraphsMail } from './layout';

const when = (at: Date) => `${at.toLocaleString('en-US', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' })} UTC`;

/**
 * A node down longer than its product's alert delay (NODE_DOWN_ALERT_MINUTES unless the product has
 * its own): once per incident, with what is at stake on its network (products.down_alert_note).
 * The engine's reason is the admins' (the fleet), never the customer's (issue 36, item 7).
 */
export function nodeDownMail(input: { to: string; name: string; since: Date; note: string | null; url: string }): Mail {
  return paragraphsMail(input.to, `Your node ${input.name} is offline`, [
    `The node of your service ${input.name} has not been running since ${when(input.since)}.`,
    ...(input.note ? [input.note] : []),
    'We restart it automatically and are working on it; you do not need to do anything. We will write again when it is back online.',
    `Its state, uptime and logs: ${input.url}`,
  ]);
}

/** The node of an incident that was mailed is running again. */
export function nodeUpMail(input: { to: string; name: string; since: Date; back: Date; rule: RewardRule | null; url: string }): Mail {
  const minutes = Math.max(1, Math.round((input.back.getTime() - input.since.getTime()) / 60_000));
  return paragraphsMail(input.to, `Your node ${input.name} is back online`, [
    `The node of your service ${input.name} is running again since ${when(input.back)}, after ${minutes} minute${minutes === 1 ? '' : 's'} offline.`,
    input.rule === 'daily_threshold' ? `Today's uptime against the reward threshold: ${input.url}` : `Its online streak and uptime: ${input.url}`,
  ]);
}

import { CHANNEL_KIND_LABELS, FAILURES_BEFORE_DISABLED, type ChannelKind } from '../../../shared/notifications';
import type { Mail } from '../mailer';
import { paragraphsMail } from './layout';

/**
 * A notification channel was disabled after FAILURES_BEFORE_DISABLED deliveries in a row failed for
 * good (issue 37): which one, why (the last failure, in the delivery log's words, which never hold
 * a URL or a secret), and where to turn it back on.
 */
export function channelDisabledMail({ to, name, kind, reason, url }: { to: string; name: string; kind: ChannelKind; reason: string; url: string }): Mail {
  return paragraphsMail(to, `Your ${CHANNEL_KIND_LABELS[kind]} notification channel “${name}” was disabled`, [
    `We stopped sending notifications to your ${CHANNEL_KIND_LABELS[kind]} channel “${name}”: its last ${FAILURES_BEFORE_DISABLED} deliveries failed. The last answer was: ${reason}`,
    'Until you turn it back on, its notifications go nowhere; e-mail and your other channels still get theirs.',
    `Check the channel's delivery log and enable it again in Settings › Notifications: ${url}`,
  ]);
}

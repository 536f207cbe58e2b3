import { randomUUID } from 'node:crypto';
import type { Context } from 'hono';
import { notificationMessages, testNotification, TESTS_PER_HOUR } from '../../shared/notifications';
import { isUuid, messages } from '../../shared/validation';
import { withClaims } from '../db/with-claims';
import type { AppDeps } from '../deps';
import { hitRateLimit } from '../http/rate-limit';
import { queueDelivery } from '../notify/notify';
import { fail, jsonBody } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

/**
 * notification-test ("Send a test"): one test message to one of the caller's active channels,
 * through the same queue and log as every delivery, at most TESTS_PER_HOUR per channel within an
 * hour whatever RATE_LIMITS_ENABLED says (it is the product's rule, not a defence to switch off).
 * Another user's channel is as absent as one that never was.
 */
export async function notificationTest(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c, messages.notAuthenticated);
  if (caller instanceof Response) return caller;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const channelId = read.body.channelId;
  if (typeof channelId !== 'string' || !isUuid(channelId)) return fail(c, 404, notificationMessages.notFound);
  // Read as the caller: the owner's view finds only their own channels.
  const channel = await withClaims(deps.db, { role: 'authenticated', claims: caller.claims }, async (tx) => {
    const { rows } = await tx.query<{ state: string }>('select state from public.my_notification_channels where id = $1', [channelId]);
    return rows[0];
  });
  if (!channel) return fail(c, 404, notificationMessages.notFound);
  if (channel.state !== 'active') return fail(c, 409, notificationMessages.notActive);
  const wait = await hitRateLimit(deps.db, `notification-test:channel:${channelId}`, { max: TESTS_PER_HOUR, windowSeconds: 3600 });
  if (wait > 0) {
    c.header('Retry-After', String(wait));
    return fail(c, 429, notificationMessages.tooManyTests);
  }
  await queueDelivery(deps.db, {
    channelId,
    userId: caller.userId,
    event: 'test',
    key: `test:${randomUUID()}`,
    message: { ...testNotification, url: `${deps.config.publicUrl}/dashboard/settings/notifications`, data: { test: true } },
  });
  return c.json({ queued: true });
}

import type { Context } from 'hono';
import { isUuid } from '../../shared/validation';
import type { AppDeps } from '../deps';
import { serviceCreatedMail } from '../mail/templates/service-created';
import { serviceDeletedMail } from '../mail/templates/service-deleted';
import { fail, jsonBody, overLimit } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

const mails = { service_created: serviceCreatedMail, service_deleted: serviceDeletedMail } as const;

/** A person creates or deletes a few services at a time; more mail than this is a loop or abuse. */
const LIMIT = { max: 20, windowSeconds: 600 };

/**
 * The service e-mails of spec §7 (the name is kept for compatibility). Mail goes only to the
 * signed-in caller's own address, about one of their own services: never to a `userEmail` given
 * in the body, so the function cannot be used to send mail to strangers. The mail is queued (a
 * send-email job delivers and retries it), so the answer never waits for the relay. A service whose
 * installation is already over gets no "being set up" mail: it would arrive after its outcome's.
 */
export async function sendSqsMessage(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c);
  if (caller instanceof Response) return caller;
  const { userId } = caller;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const body = read.body;
  const eventType = body.eventType ?? 'service_created';
  if (eventType !== 'service_created' && eventType !== 'service_deleted') {
    return fail(c, 400, 'eventType must be service_created or service_deleted');
  }
  const serviceId = (body.serviceData as { id?: unknown } | null | undefined)?.id;
  if (typeof serviceId !== 'string') return fail(c, 400, 'serviceData.id is required');
  if (!isUuid(serviceId)) return fail(c, 400, 'serviceData.id must be a UUID');
  const { rows } = await deps.db.query<{ name: string; email: string | null }>(
    `select s.name, u.email from private.services s join auth.users u on u.id = s.user_id where s.id = $1 and s.user_id = $2`,
    [serviceId, userId],
  );
  const found = rows[0];
  if (!found) return fail(c, 404, 'Service not found');
  if (!found.email) return fail(c, 400, 'Your account has no e-mail address');
  const limited = await overLimit(
    deps,
    c,
    `service-mail:user:${userId}`,
    LIMIT,
    (wait) => `Too many notifications. Please try again in ${Math.ceil(wait / 60)} minutes.`,
  );
  if (limited) return limited;
  const mail = mails[eventType]({ to: found.email, name: found.name });
  await deps.db.transaction(async (tx) => {
    if (eventType === 'service_created') {
      // NOTE: "being set up" only while it is: an installation that is over already mailed its
      // outcome, which this would follow. The row lock orders this mail against that change (the
      // worker's complete_ or fail_service_installation updates the row): it is recorded first, or not at all.
      const { rows: installing } = await tx.query(`select 1 from private.services where id = $1 and state = 'installing' for share`, [serviceId]);
      if (installing.length === 0) return;
    }
    await deps.mailer.queue(tx, mail);
  });
  return c.json({ success: true });
}

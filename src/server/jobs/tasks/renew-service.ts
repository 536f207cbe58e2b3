import { z } from 'zod';
import type { Queryable } from '../../db/database';
import type { Mail, Mailer } from '../../mail/mailer';
import { expiryMail } from '../../mail/templates/expiry';
import { endedMail } from '../../mail/templates/no-renewal';
import { renewalMail } from '../../mail/templates/renewal';
import { suspensionMail } from '../../mail/templates/suspension';
import { terminationMail } from '../../mail/templates/termination';
import type { NotificationEvent } from '../../../shared/notifications';
import { fromMail, notify } from '../../notify/notify';
import { findService } from '../service-row';
import { defineTask } from '../task';

/** What private.renew_service did (migrations 0028 and 0046: `ended` when its owner turned renewal off). */
type RenewalOutcome = 'renewed' | 'resumed' | 'suspended' | 'terminated' | 'expired' | 'ended' | 'not_due';

/** The outcomes that are a notification event too; the others are told by e-mail only. */
const EVENT_OF: Partial<Record<RenewalOutcome, NotificationEvent>> = { suspended: 'suspension_warning', terminated: 'termination_warning' };

/**
 * One step of a service's renewal through private.renew_service, and its mail in the same
 * transaction: renewed (or resumed after a suspension), suspended, terminated, expired, or ended
 * uncharged because its owner turned renewal off. The ledger key and the mail keys carry the
 * period or the suspension's end, so a repeated step charges and mails once. `tx` must be an open
 * transaction.
 */
export async function renewAndMail(
  tx: Queryable,
  { mailer, publicUrl }: { mailer: Mailer; publicUrl: string },
  serviceId: string,
  suspensionDays: number,
): Promise<RenewalOutcome> {
  const before = await findService(tx, serviceId);
  if (!before) return 'not_due';
  const { rows } = await tx.query<{ result: RenewalOutcome }>('select private.renew_service($1, $2) as result', [serviceId, suspensionDays]);
  const result = rows[0]!.result;
  const after = await findService(tx, serviceId);
  if (result === 'not_due' || !after?.email) return result;
  const to = after.email;
  const price = before.price ?? '0';
  const period = before.renews_at!.toISOString();
  // A suspension paid for is the renewal it missed: the same mail, on the same key.
  const renewed = (): [Mail, string] => [renewalMail({ to, name: after.name, amount: price, renewsAt: after.renews_at! }), `renewal:${serviceId}:${period}`];
  const mails: Record<Exclude<RenewalOutcome, 'not_due'>, () => [Mail, string]> = {
    renewed,
    resumed: renewed,
    suspended: () => [
      suspensionMail({ to, name: after.name, price, balance: after.balance, terminatesAt: after.terminates_at! }),
      `suspension:${serviceId}:${period}`,
    ],
    terminated: () => [terminationMail({ to, name: after.name }), `termination:${serviceId}:${period}`],
    expired: () => [expiryMail({ to, name: after.name, price, balance: after.balance }), `expiry:${serviceId}:${period}`],
    ended: () => [endedMail({ to, name: after.name }), `expiry:${serviceId}:${period}`],
  };
  const [mail, key] = mails[result]();
  const event = EVENT_OF[result];
  if (!event) {
    await mailer.queue(tx, mail, { key });
    return result;
  }
  const url = `${publicUrl}/dashboard/services/${serviceId}`;
  await notify(
    tx,
    { mailer },
    { userId: after.user_id, serviceId, event, key, mail, message: fromMail(mail, { serviceId, serviceName: after.name, outcome: result }, url) },
  );
  return result;
}

/** Renews one due service, or ends its suspension (the sweep queues both), keyed by the sweep. */
export const renewService = defineTask({
  name: 'renew-service',
  lane: 'upkeep',
  payload: z.object({ serviceId: z.uuid(), period: z.string().min(1) }),
  async run({ serviceId }, { db, mailer, publicUrl, suspensionDays }) {
    await db.transaction((tx) => renewAndMail(tx, { mailer, publicUrl }, serviceId, suspensionDays));
  },
});

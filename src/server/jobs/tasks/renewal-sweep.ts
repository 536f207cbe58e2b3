import { z } from 'zod';
import type { Mail } from '../../mail/mailer';
import { lowBalanceMail } from '../../mail/templates/low-balance';
import { noRenewalMail } from '../../mail/templates/no-renewal';
import { terminationReminderMail } from '../../mail/templates/termination-reminder';
import { fromMail, notify } from '../../notify/notify';
import { enqueue } from '../queue';
import { defineTask, type JobDeps } from '../task';

/** How long before a renewal the balance cannot cover its owner is warned, and before the end of a service that will not renew. */
const WARN_DAYS = 3;
/** How long before a suspended service is terminated its owner is reminded. */
const REMIND_DAYS = 3;
/** Services handled per sweep; the next sweep (a minute later) takes the rest. */
const BATCH = 1000;

/** A warning about a service's money, on the owner's channels, pointing at Billing; `key` makes a second sweep's the same notice. */
function warnAboutBilling(
  { db, mailer, publicUrl }: Pick<JobDeps, 'db' | 'mailer' | 'publicUrl'>,
  s: { id: string; user_id: string },
  event: 'suspension_warning' | 'termination_warning',
  key: string,
  mail: Mail,
  data: Record<string, unknown>,
) {
  return db.transaction((tx) =>
    notify(tx, { mailer }, { userId: s.user_id, serviceId: s.id, event, key, mail, message: fromMail(mail, data, `${publicUrl}/dashboard/billing`) }),
  );
}

/**
 * The recurring sweep: one renew-service job per due service, keyed by service and period, and one
 * per suspension that has run out, keyed by its end, so a second sweep (or a second worker's) adds
 * none; one low-balance warning per service and period, WARN_DAYS before a renewal the balance does
 * not cover; one reminder per period, as long before, that a service whose owner turned renewal
 * off will not renew; and one reminder per suspension, REMIND_DAYS before it ends.
 */
export const renewalSweep = defineTask({
  name: 'renewal-sweep',
  lane: 'upkeep',
  payload: z.object({}),
  async run(_payload, { db, mailer, publicUrl }) {
    const due = await db.query<{ id: string; renews_at: Date }>(
      `select s.id, s.renews_at from private.services s
        where s.state = 'active' and s.renews_at <= now()
        order by s.renews_at limit $1`,
      [BATCH],
    );
    for (const s of due.rows) {
      const period = s.renews_at.toISOString();
      await enqueue(db, 'renew-service', { serviceId: s.id, period }, { key: `renew-service:${s.id}:${period}` });
    }
    const ending = await db.query<{ id: string; renews_at: Date; terminates_at: Date }>(
      `select s.id, s.renews_at, s.terminates_at from private.services s
        where s.state = 'suspended' and s.terminates_at <= now()
        order by s.terminates_at limit $1`,
      [BATCH],
    );
    for (const s of ending.rows) {
      await enqueue(
        db,
        'renew-service',
        { serviceId: s.id, period: s.renews_at.toISOString() },
        { key: `terminate-service:${s.id}:${s.terminates_at.toISOString()}` },
      );
    }
    const short = await db.query<{ id: string; user_id: string; name: string; renews_at: Date; email: string; price: string; balance: string }>(
      `select s.id, s.user_id, s.name, s.renews_at, u.email, p.price, c.balance
         from private.services s
         join auth.users u on u.id = s.user_id
         join public.products p on p.id = s.product_id
         join public.user_credits c on c.user_id = s.user_id
        where s.renews_at > now() and s.renews_at <= now() + make_interval(days => $1)
          and s.state = 'active' and s.auto_renew
          and p.renew_interval is not null and p.price > c.balance and u.email is not null
        order by s.renews_at limit $2`,
      [WARN_DAYS, BATCH],
    );
    for (const s of short.rows) {
      const mail = lowBalanceMail({ to: s.email, name: s.name, price: s.price, balance: s.balance, renewsAt: s.renews_at });
      const data = { serviceId: s.id, serviceName: s.name, price: s.price, balance: s.balance, renewsAt: s.renews_at.toISOString() };
      await warnAboutBilling({ db, mailer, publicUrl }, s, 'suspension_warning', `low-balance:${s.id}:${s.renews_at.toISOString()}`, mail, data);
    }
    // Its owner turned renewal off: no warning of a charge, but word of the end and of the switch
    // that prevents it (a plan that does not renew has no switch to name).
    const closing = await db.query<{ id: string; name: string; renews_at: Date; email: string }>(
      `select s.id, s.name, s.renews_at, u.email
         from private.services s
         join auth.users u on u.id = s.user_id
         join public.products p on p.id = s.product_id
        where s.renews_at > now() and s.renews_at <= now() + make_interval(days => $1)
          and s.state = 'active' and not s.auto_renew
          and p.renew_interval is not null and u.email is not null
        order by s.renews_at limit $2`,
      [WARN_DAYS, BATCH],
    );
    for (const s of closing.rows) {
      const mail = noRenewalMail({ to: s.email, name: s.name, endsAt: s.renews_at });
      await mailer.queue(db, mail, { key: `no-renewal:${s.id}:${s.renews_at.toISOString()}` });
    }
    const ends = await db.query<{ id: string; user_id: string; name: string; terminates_at: Date; email: string; price: string; balance: string }>(
      `select s.id, s.user_id, s.name, s.terminates_at, u.email, coalesce(p.price, 0) as price, c.balance
         from private.services s
         join auth.users u on u.id = s.user_id
         left join public.products p on p.id = s.product_id
         join public.user_credits c on c.user_id = s.user_id
        where s.state = 'suspended' and s.terminates_at > now() and s.terminates_at <= now() + make_interval(days => $1)
          and u.email is not null
        order by s.terminates_at limit $2`,
      [REMIND_DAYS, BATCH],
    );
    for (const s of ends.rows) {
      const mail = terminationReminderMail({ to: s.email, name: s.name, price: s.price, balance: s.balance, terminatesAt: s.terminates_at });
      const data = { serviceId: s.id, serviceName: s.name, price: s.price, balance: s.balance, terminatesAt: s.terminates_at.toISOString() };
      await warnAboutBilling({ db, mailer, publicUrl }, s, 'termination_warning', `termination-reminder:${s.id}:${s.terminates_at.toISOString()}`, mail, data);
    }
  },
});

import { z } from 'zod';
import { balanceBelowThresholdMail } from '../../mail/templates/balance-below-threshold';
import { fromMail, notify } from '../../notify/notify';
import { defineTask } from '../task';

/**
 * Queued by the balance's trigger (migration 0053, private.watch_low_balance) when a charge took it
 * below its owner's threshold, once per crossing: the low_balance notice, keyed by the crossing.
 */
export const notifyLowBalance = defineTask({
  name: 'notify-low-balance',
  lane: 'upkeep',
  payload: z.object({ userId: z.uuid(), crossing: z.number().int().positive(), balance: z.coerce.string(), threshold: z.coerce.string() }),
  async run({ userId, crossing, balance, threshold }, { db, mailer, publicUrl }) {
    const { rows } = await db.query<{ email: string | null }>('select email from auth.users where id = $1', [userId]);
    const to = rows[0]?.email;
    if (!to) return;
    const url = `${publicUrl}/dashboard/billing`;
    const mail = balanceBelowThresholdMail({ to, balance, threshold, url });
    await db.transaction((tx) =>
      notify(
        tx,
        { mailer },
        { userId, event: 'low_balance', key: `low-balance-threshold:${userId}:${crossing}`, mail, message: fromMail(mail, { balance, threshold }, url) },
      ),
    );
  },
});

import { z } from 'zod';
import { expiryMail } from '../../mail/templates/expiry';
import { renewalMail } from '../../mail/templates/renewal';
import { findService } from '../service-row';
import { defineTask } from '../task';

/**
 * Renews one due service through private.renew_service (charge and next renews_at, or expired and
 * a stop-service job), and mails its owner in the same transaction. The ledger key and the mail
 * keys carry the period, so a repeated job charges and mails once.
 */
export const renewService = defineTask({
  name: 'renew-service',
  lane: 'upkeep',
  payload: z.object({ serviceId: z.uuid(), period: z.string().min(1) }),
  async run({ serviceId, period }, { db, mailer }) {
    await db.transaction(async (tx) => {
      const before = await findService(tx, serviceId);
      if (!before) return;
      const { rows } = await tx.query<{ result: 'renewed' | 'expired' | 'not_due' }>('select private.renew_service($1) as result', [serviceId]);
      const result = rows[0]!.result;
      const after = await findService(tx, serviceId);
      if (result === 'not_due' || !after?.email) return;
      if (result === 'renewed') {
        const mail = renewalMail({ to: after.email, name: after.name, amount: before.price ?? '0', renewsAt: after.renews_at! });
        await mailer.queue(tx, mail, { key: `renewal:${serviceId}:${period}` });
      } else {
        const mail = expiryMail({ to: after.email, name: after.name, price: before.price ?? '0', balance: after.balance });
        await mailer.queue(tx, mail, { key: `expiry:${serviceId}:${period}` });
      }
    });
  },
});

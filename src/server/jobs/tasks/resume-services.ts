import { z } from 'zod';
import { defineTask } from '../task';
import { renewAndMail } from './renew-service';

/**
 * Queued by a credit to a balance (migration 0028's trigger) when its owner has a suspended
 * service: renews each one the balance now covers, the one nearest its termination first, and
 * starts its node. One that the balance still does not cover stays suspended.
 */
export const resumeServices = defineTask({
  name: 'resume-services',
  lane: 'upkeep',
  payload: z.object({ userId: z.uuid() }),
  async run({ userId }, { db, mailer, publicUrl, suspensionDays }) {
    const { rows } = await db.query<{ id: string }>(`select id from private.services where user_id = $1 and state = 'suspended' order by terminates_at, id`, [
      userId,
    ]);
    // One transaction each: a service paid for stays paid for if a later one fails.
    for (const { id } of rows) await db.transaction((tx) => renewAndMail(tx, { mailer, publicUrl }, id, suspensionDays));
  },
});

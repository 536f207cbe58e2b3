import { z } from 'zod';
import { defineTask, NotYet } from '../task';

/** How long a mail waits before it looks again at the earlier mail to its address it follows. */
const ORDER_WAIT_SECONDS = 2;

/**
 * Delivers one mail of the outbox through the relay; retried with back-off when it refuses. A mail
 * to an address with an earlier mail still on its way waits for it, its attempts unspent: a person's
 * mails arrive in the order they were written ("being set up" before "failed", never after).
 */
export const sendEmail = defineTask({
  name: 'send-email',
  lane: 'upkeep',
  payload: z.object({ outboxId: z.number().int().positive() }),
  async run({ outboxId }, { mailer }) {
    const earlier = await mailer.deliver(outboxId);
    if (earlier !== undefined) throw new NotYet(`mail ${earlier} to the same address goes first`, ORDER_WAIT_SECONDS);
  },
});

import { z } from 'zod';
import { defineTask } from '../task';

/** Delivers one mail of the outbox through the relay; retried with back-off when it refuses. */
export const sendEmail = defineTask({
  name: 'send-email',
  lane: 'upkeep',
  payload: z.object({ outboxId: z.number().int().positive() }),
  run: ({ outboxId }, { mailer }) => mailer.deliver(outboxId),
});

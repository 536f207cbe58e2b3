import { z } from 'zod';
import { defineTask } from '../task';

/** Finished jobs are kept this long for inspection. Keys of old periods are never used again. */
const KEEP_DAYS = 14;

export const pruneJobs = defineTask({
  name: 'prune-jobs',
  lane: 'upkeep',
  payload: z.object({}),
  async run(_payload, { db }) {
    await db.query(`delete from nodeharbor.jobs where status in ('done', 'failed') and finished_at < now() - make_interval(days => $1)`, [KEEP_DAYS]);
  },
});

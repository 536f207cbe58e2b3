import { z } from 'zod';
import { UPTIME_KEPT_DAYS } from '../../../shared/node-health';
import { defineTask } from '../task';

/** Uptime days and closed incidents older than UPTIME_KEPT_DAYS go (hourly). */
export const pruneNodeHistory = defineTask({
  name: 'prune-node-history',
  lane: 'upkeep',
  payload: z.object({}),
  async run(_payload, { db }) {
    await db.query('select private.prune_node_history($1)', [UPTIME_KEPT_DAYS]);
  },
});

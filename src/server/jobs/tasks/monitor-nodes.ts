import { z } from 'zod';
import { sweepNodes } from '../../provisioning/node-monitor';
import { defineTask } from '../task';

/** The node monitor's sweep, every NODE_MONITOR_INTERVAL_SECONDS (provisioning/node-monitor.ts). */
export const monitorNodes = defineTask({
  name: 'monitor-nodes',
  lane: 'upkeep',
  payload: z.object({}),
  // A sweep retried later would sample a later moment: the next period's sweep does that anyway.
  async run(_payload, deps) {
    await sweepNodes(deps);
  },
});

import { z } from 'zod';
import { reconcileNodes } from '../../provisioning/reconciler';
import { defineTask } from '../task';

/** The recurring repair of drift between the database and the engine (provisioning/reconciler.ts). */
export const reconcileNodesTask = defineTask({
  name: 'reconcile-nodes',
  lane: 'upkeep',
  payload: z.object({}),
  async run(_payload, deps) {
    await reconcileNodes(deps);
  },
});

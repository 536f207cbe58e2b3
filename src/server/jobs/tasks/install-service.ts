import { z } from 'zod';
import { failInstallation, installNode } from '../../provisioning/install-node';
import { findService } from '../service-row';
import { defineTask } from '../task';

/** Installing → active, or failed with the engine's reason (provisioning/install-node.ts). */
export const installService = defineTask({
  name: 'install-service',
  lane: 'nodes',
  payload: z.object({ serviceId: z.uuid() }),
  run: ({ serviceId }, deps) => installNode(deps, serviceId),
  // The engine could not even be asked, attempt after attempt: the owner is told, and may retry.
  async onFailed({ serviceId }, deps, error) {
    if ((await findService(deps.db, serviceId))?.state !== 'installing') return;
    await failInstallation(deps, serviceId, `The node could not be installed: ${error}`);
  },
});

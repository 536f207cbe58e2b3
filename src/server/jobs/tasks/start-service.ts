import { z } from 'zod';
import { nodeSpecOf } from '../../provisioning/node-spec';
import { findService, recordEvent, recordGaveUp } from '../service-row';
import { defineTask } from '../task';

/** Runs the node of a service paid for again after it was suspended or expired: 1 replica, or a new node if it is gone. */
export const startService = defineTask({
  name: 'start-service',
  lane: 'nodes',
  payload: z.object({ serviceId: z.uuid() }),
  async run({ serviceId }, { db, provisioner, nodes }) {
    const svc = await findService(db, serviceId);
    if (svc?.state !== 'active') return;
    // Stopped on request before it was suspended or expired: paying again keeps it stopped, as its
    // owner left it (decided in migration 0047); Start runs it.
    if (svc.stopped_at) {
      await recordEvent(db, serviceId, 'power_kept_stopped');
      return;
    }
    const status = await provisioner.status(serviceId);
    if (status === 'running') return;
    if (status === 'stopped') await provisioner.start(serviceId);
    else await provisioner.install(await nodeSpecOf(db, serviceId, nodes.images));
    await recordEvent(db, serviceId, 'started');
  },
  onFailed: recordGaveUp('start_failed'),
});

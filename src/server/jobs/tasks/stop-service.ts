import { z } from 'zod';
import { findService, recordEvent, recordGaveUp } from '../service-row';
import { defineTask } from '../task';

/** Stops the node of a suspended or expired service: 0 replicas, the node and its secret kept for a renewal or an extension. */
export const stopService = defineTask({
  name: 'stop-service',
  lane: 'nodes',
  payload: z.object({ serviceId: z.uuid() }),
  async run({ serviceId }, { db, provisioner }) {
    const svc = await findService(db, serviceId);
    // Paid for again before this job ran: the node keeps running.
    if (svc?.state !== 'expired' && svc?.state !== 'suspended') return;
    if ((await provisioner.status(serviceId)) !== 'running') return;
    await provisioner.stop(serviceId);
    await recordEvent(db, serviceId, 'stopped');
  },
  onFailed: recordGaveUp('stop_failed'),
});

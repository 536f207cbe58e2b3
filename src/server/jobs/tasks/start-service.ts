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
    const status = await provisioner.status(serviceId);
    if (status === 'running') return;
    if (status === 'stopped') await provisioner.start(serviceId);
    else await provisioner.install(await nodeSpecOf(db, serviceId, nodes.images));
    await recordEvent(db, serviceId, 'started');
  },
  onFailed: recordGaveUp('start_failed'),
});

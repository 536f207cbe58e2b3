import { z } from 'zod';
import { findService, recordEvent, recordGaveUp } from '../service-row';
import { defineTask } from '../task';

/** Starts the node of a service that was extended after it expired. */
export const startService = defineTask({
  name: 'start-service',
  payload: z.object({ serviceId: z.uuid() }),
  async run({ serviceId }, { db, provisioner }) {
    const svc = await findService(db, serviceId);
    if (!svc || svc.expired || svc.is_deleted || svc.is_deleting) return;
    if ((await provisioner.status(serviceId)) !== 'stopped') return;
    await provisioner.start(serviceId);
    await recordEvent(db, serviceId, 'started');
  },
  onFailed: recordGaveUp('start_failed'),
});

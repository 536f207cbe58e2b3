import { z } from 'zod';
import { findService, recordGaveUp } from '../service-row';
import { defineTask } from '../task';

/** Deleting → deleted: removes the node and its secret, then marks the service deleted (reusable if paid). */
export const uninstallService = defineTask({
  name: 'uninstall-service',
  lane: 'nodes',
  payload: z.object({ serviceId: z.uuid() }),
  async run({ serviceId }, { db, provisioner }) {
    const svc = await findService(db, serviceId);
    if (svc?.state !== 'deleting') return;
    await provisioner.uninstall(serviceId);
    await db.query('select private.complete_service_deletion($1)', [serviceId]);
  },
  onFailed: recordGaveUp('delete_failed'),
});

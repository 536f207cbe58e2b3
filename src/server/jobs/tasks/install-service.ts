import { z } from 'zod';
import { findService, recordGaveUp } from '../service-row';
import { defineTask } from '../task';

/** Installing → active: installs the node, then marks the service installed (both idempotent). */
export const installService = defineTask({
  name: 'install-service',
  payload: z.object({ serviceId: z.uuid() }),
  async run({ serviceId }, { db, provisioner }) {
    const svc = await findService(db, serviceId);
    // Installed already (a repeated job), or deleted since: nothing to do.
    if (!svc || svc.is_installed || svc.is_deleted || svc.is_deleting) return;
    await provisioner.install({ serviceId, productId: svc.product_id });
    await db.query('select private.complete_service_installation($1)', [serviceId]);
  },
  onFailed: recordGaveUp('install_failed'),
});

import { z } from 'zod';
import { POWER_ACTIONS } from '../../../shared/power-actions';
import { findService, recordEvent } from '../service-row';
import { defineTask } from '../task';

/**
 * Restart, Stop or Start of a node, as its owner or an admin asked (public.service_power_action,
 * migration 0047, enqueues it with the request). Stop and Start bring the engine to what the service
 * says now (stopped_at), not to what this job was asked: two quick requests end as the last one
 * asked, in whichever order their jobs run. Only a Restart of a node that runs does more.
 */
export const powerNode = defineTask({
  name: 'power-node',
  lane: 'nodes',
  payload: z.object({ serviceId: z.uuid(), action: z.enum(POWER_ACTIONS) }),
  async run({ serviceId, action }, { db, provisioner }) {
    const svc = await findService(db, serviceId);
    // Suspended, expired or deleted since: their own jobs have the node.
    if (svc?.state !== 'active') return;
    const status = await provisioner.status(serviceId);
    // No node in the engine: the reconciler makes it again, stopped or running as the service says.
    if (status === 'absent') return;
    if (svc.stopped_at) {
      if (status === 'running') await provisioner.stop(serviceId);
      return;
    }
    // A Start, or a Restart of a node found stopped: either way it must run.
    if (status === 'stopped') {
      await provisioner.start(serviceId);
      return;
    }
    if (action !== 'restart') return;
    await provisioner.restart(serviceId);
    // The new run is the owner's restart, not a crash: the monitor must not count it as one. The
    // node's state is unknown until the next sweep, whose sample then counts as a first one.
    await db.query(`update private.node_status set state = 'unknown', task_id = null, changed_at = now() where service_id = $1`, [serviceId]);
  },
  onFailed: async ({ serviceId, action }, { db }, error) => {
    await recordEvent(db, serviceId, 'power_failed', { action, error: error.slice(0, 500) });
  },
});

import { z } from 'zod';
import { nodeSpecOf } from '../../provisioning/node-spec';
import { findService, recordEvent, recordGaveUp } from '../service-row';
import { defineTask } from '../task';

/** States whose node exists in the engine: the ones whose key change is carried to the node. */
const LIVE = new Set(['active', 'expired', 'suspended']);

/**
 * Hands a node its service's new key (manage_service_operation enqueues it with the change). The
 * payload names the service only: the key is read and decrypted here, so a repeated or late job
 * hands over the latest key, and the key is never in the queue.
 */
export const updateNodeKey = defineTask({
  name: 'update-node-key',
  lane: 'nodes',
  payload: z.object({ serviceId: z.uuid() }),
  async run({ serviceId }, { db, provisioner, nodes }) {
    const svc = await findService(db, serviceId);
    if (!svc || !LIVE.has(svc.state)) return;
    // No node in the engine: the reconciler installs one, with the key as it is then.
    if ((await provisioner.status(serviceId)) === 'absent') return;
    await provisioner.updateKey(await nodeSpecOf(db, serviceId, nodes.images));
    // The node starts a new run for its new key: the monitor must not take it for a crash. Its
    // state is unknown until the next sweep, whose sample then counts as a first one.
    await db.query(`update private.node_status set state = 'unknown', task_id = null, changed_at = now() where service_id = $1`, [serviceId]);
    await recordEvent(db, serviceId, 'key_applied');
  },
  onFailed: recordGaveUp('key_update_failed'),
});

import type { Database } from '../db/database';
import type { Logger } from '../http/logger';
import type { ServiceState } from '../../shared/constants';
import { findService, recordEvent } from '../jobs/service-row';
import type { NodeSettings } from './node-settings';
import { nodeSpecOf } from './node-spec';
import type { NodeStatus, Provisioner } from './provisioner';

export type ReconcileDeps = { db: Database; logger: Logger; provisioner: Provisioner; nodes: NodeSettings };

/** One correction of drift, as recorded on the service's log. */
export type Correction = { serviceId: string; event: 'node_recreated' | 'replicas_corrected' | 'orphan_removed'; replicas?: number };

/** Corrections one sweep makes at most; the next sweep takes the rest. */
const MAX_CORRECTIONS = 20;

/**
 * What the engine should have of a service in this state; undefined: a job of its own is on it. An
 * active service's node stopped on request (stopped_at) stays stopped until it is started.
 */
function wanted(state: ServiceState | undefined, stoppedAt: Date | null | undefined): NodeStatus | undefined {
  switch (state) {
    case 'active':
      return stoppedAt ? 'stopped' : 'running';
    case 'expired':
    case 'suspended':
      return 'stopped';
    case 'installing':
    case 'deleting':
      return undefined;
    default:
      // failed, deleted, or no such service: nothing of it should run.
      return 'absent';
  }
}

/**
 * Compares what the database wants with what the engine has, by label, and repairs the drift: a
 * node that should exist but is missing is recreated, a node with the wrong replicas is scaled,
 * and a labelled node or secret with no live service behind it is removed. Services installing or
 * deleting belong to their jobs and are left alone; each correction reads the state again first,
 * so one that changed since the sweep began is not undone.
 */
export async function reconcileNodes(deps: ReconcileDeps, maxCorrections = MAX_CORRECTIONS): Promise<Correction[]> {
  const { db, provisioner, logger } = deps;
  const engine = new Map((await provisioner.list()).map((n) => [n.serviceId, n.status]));
  const { rows } = await db.query<{ id: string; state: ServiceState; stopped_at: Date | null }>(
    `select id, state::text as state, stopped_at from private.services
      where state in ('active', 'expired', 'suspended') or id = any($1::uuid[])`,
    [[...engine.keys()]],
  );
  const states = new Map(rows.map((r) => [r.id, r]));
  const drifted = [...new Set([...states.keys(), ...engine.keys()])].filter((id) => {
    const want = wanted(states.get(id)?.state, states.get(id)?.stopped_at);
    return want !== undefined && want !== (engine.get(id) ?? 'absent');
  });
  const corrections: Correction[] = [];
  for (const serviceId of drifted.slice(0, maxCorrections)) {
    const has = engine.get(serviceId) ?? 'absent';
    const svc = await findService(db, serviceId);
    const want = wanted(svc?.state, svc?.stopped_at);
    if (want === undefined || want === has) continue;
    let correction: Correction;
    if (want === 'absent') {
      await provisioner.uninstall(serviceId);
      correction = { serviceId, event: 'orphan_removed' };
    } else if (has === 'absent') {
      await provisioner.install(await nodeSpecOf(db, serviceId, deps.nodes.images));
      if (want === 'stopped') await provisioner.stop(serviceId);
      correction = { serviceId, event: 'node_recreated' };
    } else {
      await (want === 'running' ? provisioner.start(serviceId) : provisioner.stop(serviceId));
      correction = { serviceId, event: 'replicas_corrected', replicas: want === 'running' ? 1 : 0 };
    }
    corrections.push(correction);
    logger.info('node drift repaired', { ...correction });
    if (svc) await recordEvent(db, serviceId, correction.event, correction.replicas === undefined ? undefined : { replicas: correction.replicas });
  }
  return corrections;
}

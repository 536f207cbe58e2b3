import type { Database } from '../db/database';
import type { NodeStatus, Provisioner } from '../provisioner';

export type SimulatedDriverOptions = { installSeconds: number; deleteSeconds: number };

const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));

/**
 * A provisioner that runs nothing: installing and deleting take the configured time, and the
 * node's state is kept in nodeharbor.simulated_nodes, so it survives a restart as a real node would.
 */
export function createSimulatedDriver(db: Database, opts: SimulatedDriverOptions): Provisioner {
  const status = async (serviceId: string): Promise<NodeStatus> => {
    const { rows } = await db.query<{ state: 'running' | 'stopped' }>(
      'select state from nodeharbor.simulated_nodes where service_id = $1',
      [serviceId],
    );
    return rows[0]?.state ?? 'absent';
  };
  const setState = (serviceId: string, state: 'running' | 'stopped') =>
    db.query(`update nodeharbor.simulated_nodes set state = $2, updated_at = now() where service_id = $1`, [serviceId, state]);
  return {
    status,
    async install(node) {
      if ((await status(node.serviceId)) !== 'absent') return;
      await sleep(opts.installSeconds);
      await db.query(
        `insert into nodeharbor.simulated_nodes (service_id, state, installs) values ($1, 'running', 1)
         on conflict (service_id) do update set state = 'running', installs = simulated_nodes.installs + 1, updated_at = now()`,
        [node.serviceId],
      );
    },
    async uninstall(serviceId) {
      if ((await status(serviceId)) === 'absent') return;
      await sleep(opts.deleteSeconds);
      await db.query('delete from nodeharbor.simulated_nodes where service_id = $1', [serviceId]);
    },
    async stop(serviceId) {
      await setState(serviceId, 'stopped');
    },
    async start(serviceId) {
      await setState(serviceId, 'running');
    },
  };
}

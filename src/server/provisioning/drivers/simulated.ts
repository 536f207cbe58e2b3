import type { Database } from '../../db/database';
import type { NodeStatus, Provisioner } from '../provisioner';

export type SimulatedDriverOptions = { installSeconds: number; deleteSeconds: number };

const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));

type NodeRow = { service_id: string; state: 'running' | 'stopped'; updated_at: Date };

/**
 * A provisioner that runs nothing: installing and deleting take the configured time, and the
 * node's state is kept in nodeharbor.simulated_nodes, so it survives a restart as a real node would.
 * It needs nothing of the node spec but its id: the key is never stored.
 */
export function createSimulatedDriver(db: Database, opts: SimulatedDriverOptions): Provisioner {
  const find = async (serviceId: string): Promise<NodeRow | undefined> =>
    (await db.query<NodeRow>('select service_id, state, updated_at from nodeharbor.simulated_nodes where service_id = $1', [serviceId])).rows[0];
  const status = async (serviceId: string): Promise<NodeStatus> => (await find(serviceId))?.state ?? 'absent';
  const setState = (serviceId: string, state: 'running' | 'stopped') =>
    db.query(`update nodeharbor.simulated_nodes set state = $2, updated_at = now() where service_id = $1 and state <> $2`, [serviceId, state]);
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
    async health(serviceId) {
      const node = await find(serviceId);
      if (!node) return { state: 'absent' };
      return node.state === 'running' ? { state: 'running', since: node.updated_at } : { state: 'stopped' };
    },
    async list() {
      const { rows } = await db.query<NodeRow>('select service_id, state, updated_at from nodeharbor.simulated_nodes order by service_id');
      return rows.map((r) => ({ serviceId: r.service_id, status: r.state }));
    },
  };
}

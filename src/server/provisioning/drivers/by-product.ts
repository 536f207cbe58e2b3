import type { Database } from '../../db/database';
import { NodeCannotRun } from '../node-spec';
import type { NodeSpec, Provisioner } from '../provisioner';

export type Drivers = { swarm: Provisioner; machine: Provisioner | undefined };

const NO_MACHINES =
  'This plan runs each node on a cloud server of its own, and no cloud provider is configured: the operator must set MACHINE_PROVIDER (README, Running real nodes).';

/**
 * The driver each product names (products.node_driver, issue 35): Swarm for container-native
 * nodes, a machine of its own for Gala's. A node is found by its service's product; the lists
 * are both drivers' together, and an orphan is removed from both. Without a machine provider, a
 * machine product's node cannot be made, and there is none of it to find.
 */
export function createProductRouter(db: Database, drivers: Drivers): Provisioner {
  async function driverOf(serviceId: string): Promise<Provisioner | undefined> {
    const { rows } = await db.query<{ driver: string | null }>(
      'select p.node_driver as driver from private.services s left join public.products p on p.id = s.product_id where s.id = $1',
      [serviceId],
    );
    return rows[0]?.driver === 'machine' ? drivers.machine : drivers.swarm;
  }
  const all = [drivers.swarm, ...(drivers.machine ? [drivers.machine] : [])];
  /** A node whose service is gone (an orphan) may be in either engine: each removes what it has. */
  async function uninstall(serviceId: string): Promise<void> {
    const known = (await db.query('select 1 from private.services where id = $1', [serviceId])).rowCount > 0;
    for (const d of known ? [await driverOf(serviceId)] : all) await d?.uninstall(serviceId);
  }
  const forSpec = (spec: NodeSpec) => {
    if (!spec.machine) return drivers.swarm;
    if (!drivers.machine) throw new NodeCannotRun(NO_MACHINES);
    return drivers.machine;
  };

  return {
    install: (spec) => forSpec(spec).install(spec),
    updateKey: (spec) => forSpec(spec).updateKey(spec),
    uninstall,
    stop: async (id) => (await driverOf(id))?.stop(id),
    start: async (id) => (await driverOf(id))?.start(id),
    status: async (id) => (await (await driverOf(id))?.status(id)) ?? 'absent',
    health: async (id) => (await (await driverOf(id))?.health(id)) ?? { state: 'absent' },
    logs: async (id, tail) => (await (await driverOf(id))?.logs(id, tail)) ?? [],
    list: async () => (await Promise.all(all.map((d) => d.list()))).flat(),
    observe: async () => (await Promise.all(all.map((d) => d.observe()))).flat(),
  };
}

import type { Database } from '../../db/database';
import { NodeCannotRun } from '../node-spec';
import type { NodeSpec, Provisioner } from '../provisioner';

/** The drivers this NodeHarbor runs: either may be off (SWARM=off, no MACHINE_PROVIDER), not both. */
export type Drivers = { swarm: Provisioner | undefined; machine: Provisioner | undefined };

const NO_MACHINES =
  'This plan runs each node on a cloud server of its own, and no cloud provider is configured: the operator must set MACHINE_PROVIDER (README, Running real nodes).';
const NO_SWARM =
  'This plan runs its nodes on Docker Swarm, which this NodeHarbor does not use (SWARM=off): the operator must turn it on (README, Running real nodes).';

/**
 * The driver each product names (products.node_driver, issue 35): Swarm for container-native
 * nodes, a machine of its own for Gala's. A node is found by its service's product; the lists
 * are both drivers' together, and an orphan is removed from both. A product whose driver is off
 * cannot have its node made, and there is none of it to find.
 */
export function createProductRouter(db: Database, drivers: Drivers): Provisioner {
  const all = [drivers.swarm, drivers.machine].filter((d): d is Provisioner => d !== undefined);
  /** The driver of a service's node, or all of them for a service that is gone (an orphan may be in either). */
  async function driversOf(serviceId: string): Promise<Provisioner[]> {
    const { rows } = await db.query<{ driver: string | null }>(
      'select p.node_driver as driver from private.services s left join public.products p on p.id = s.product_id where s.id = $1',
      [serviceId],
    );
    if (!rows[0]) return all;
    const d = rows[0].driver === 'machine' ? drivers.machine : drivers.swarm;
    return d ? [d] : [];
  }
  const driverOf = async (serviceId: string) => (await driversOf(serviceId)).at(0);
  const forSpec = (spec: NodeSpec) => {
    const d = spec.machine ? drivers.machine : drivers.swarm;
    if (!d) throw new NodeCannotRun(spec.machine ? NO_MACHINES : NO_SWARM);
    return d;
  };

  return {
    install: (spec) => forSpec(spec).install(spec),
    updateKey: (spec) => forSpec(spec).updateKey(spec),
    uninstall: async (id) => {
      for (const d of await driversOf(id)) await d.uninstall(id);
    },
    stop: async (id) => (await driverOf(id))?.stop(id),
    start: async (id) => (await driverOf(id))?.start(id),
    restart: async (id) => (await driverOf(id))?.restart(id),
    status: async (id) => (await (await driverOf(id))?.status(id)) ?? 'absent',
    health: async (id) => (await (await driverOf(id))?.health(id)) ?? { state: 'absent' },
    logs: async (id, tail) => (await (await driverOf(id))?.logs(id, tail)) ?? [],
    list: async () => (await Promise.all(all.map((d) => d.list()))).flat(),
    observe: async () => (await Promise.all(all.map((d) => d.observe()))).flat(),
    // Only Swarm's engine calls count against the budget: the machine driver answers none (decisions/040).
    usage: async (budget) => (await Promise.all(all.map((d) => d.usage(budget)))).flat(),
  };
}

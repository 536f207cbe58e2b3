import type { Queryable } from '../db/database';
import type { NodeSpec } from './provisioner';

/** A node that cannot be started whatever the engine does: its service's installation fails with this reason. */
export class NodeCannotRun extends Error {}

type SpecRow = {
  user_id: string;
  product: string | null;
  node_image: string | null;
  node_cpus: string;
  node_memory_mb: number;
  node_pool: string | null;
  node_driver: 'swarm' | 'machine' | null;
  machine_server_type: string | null;
  machine_image: string | null;
  machine_locations: string[] | null;
  machine_workload: string | null;
  key: string;
};

/**
 * What the engine needs to run a service's node: the product's image (or NODE_IMAGES'), limits and
 * pool, and the customer's key, decrypted here and only for the engine's secret store.
 */
export async function nodeSpecOf(q: Queryable, serviceId: string, images: Readonly<Record<string, string>>): Promise<NodeSpec> {
  const { rows } = await q.query<SpecRow>(
    `select s.user_id, p.base_product_code as product, p.node_image, p.node_cpus, p.node_memory_mb, p.node_pool,
            p.node_driver, p.machine_server_type, p.machine_image, p.machine_locations, p.machine_workload,
            private.decrypt_with_either_key(s.api_key_encrypted) as key
       from private.services s
       left join public.products p on p.id = s.product_id
      where s.id = $1`,
    [serviceId],
  );
  const row = rows[0];
  if (!row) throw new Error(`no service ${serviceId}`);
  if (!row.product) throw new NodeCannotRun('This service has no plan, so there is no node to run.');
  const machine =
    row.node_driver === 'machine'
      ? { serverType: row.machine_server_type!, image: row.machine_image!, locations: row.machine_locations!, workload: row.machine_workload! }
      : null;
  // A machine's node is the vendor's software, which its boot script installs: no image of ours.
  const image = images[row.product] ?? row.node_image ?? (machine ? '' : null);
  if (image === null) throw new NodeCannotRun(`No node image is configured for ${row.product}.`);
  return {
    serviceId,
    userId: row.user_id,
    product: row.product,
    image,
    cpus: Number(row.node_cpus),
    memoryMb: row.node_memory_mb,
    pool: row.node_pool,
    key: row.key,
    machine,
  };
}
